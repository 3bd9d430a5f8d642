package io.loopdiag.cli;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** Where the other jars are, from where this one is: {@code cli/target/loopdiag.jar} beside {@code agent/} and {@code test-apps/}. */
final class Paths {
    private Paths() {
    }

    /** The project's top folder, or the current folder if this class is not in a jar under it. */
    static Path top() {
        try {
            Path self = Path.of(Paths.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path top = self.getParent() != null && self.getParent().getParent() != null ? self.getParent().getParent().getParent() : null;
            return top != null ? top : Path.of("");
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of("");
        }
    }

    static Path agentJar() {
        return top().resolve("agent/target/loopdiag-agent.jar");
    }

    static Path appsJar() {
        return top().resolve("test-apps/target/test-apps.jar");
    }
}
