package io.loopdiag.cli;

import io.loopdiag.protocol.Frame;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The source files under a root, found by the package path a stack frame gives
 * ({@code com/acme/Cart.java} becomes {@code service/src/main/java/com/acme/Cart.java}), so that
 * CI annotations land on the right file. Build output and hidden folders are not searched.
 */
final class Sources {
    private static final Set<String> SKIPPED = Set.of("target", "build", "out", "node_modules");
    /** Enough for any repository; a root such as / stops here instead of walking the disk. */
    private static final int MAX_FILES = 200_000;

    private final Map<String, List<String>> byFileName = new HashMap<>();

    private Sources() {
    }

    /** Indexes the files under {@code root}; an unreadable root gives an empty index. */
    static Sources under(Path root) {
        Sources sources = new Sources();
        int[] files = {0};
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                    String name = dir.getFileName() != null ? dir.getFileName().toString() : "";
                    boolean skip = !dir.equals(root) && (name.startsWith(".") || SKIPPED.contains(name));
                    return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    sources.byFileName.computeIfAbsent(file.getFileName().toString(), k -> new ArrayList<>())
                            .add(root.relativize(file).toString().replace('\\', '/'));
                    return ++files[0] < MAX_FILES ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException unreadable) {
            // An index of what was read so far: a frame not found has no path.
        }
        return sources;
    }

    /** The path under the root of {@code frame}'s source file, or null if it is not there. */
    String pathOf(Frame frame) {
        String packagePath = frame.sourcePath();
        if (packagePath == null) {
            return null;
        }
        String best = null;
        for (String candidate : byFileName.getOrDefault(frame.file(), List.of())) {
            if ((candidate.equals(packagePath) || candidate.endsWith("/" + packagePath))
                    && (best == null || candidate.length() < best.length())) {
                best = candidate;
            }
        }
        return best;
    }
}
