package io.loopdiag.cli;

import io.loopdiag.protocol.Kind;
import io.loopdiag.protocol.Text;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** The options of the CI verdict, shared by {@code check} and {@code run}. */
final class CheckOptions {
    @Option(names = "--fail-on", paramLabel = "KINDS", split = ",", defaultValue = Kind.BLOCKING_CALL_ID,
            description = "Kinds that fail the check, comma separated, from: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).",
            completionCandidates = Kinds.class, converter = KindConverter.class)
    List<String> failOn;

    @Option(names = "--baseline", paramLabel = "FILE",
            description = "Findings recorded by --write-baseline: they are shown but do not fail.")
    Path baseline;

    @Option(names = "--write-baseline", paramLabel = "FILE",
            description = "Record every finding in FILE as the baseline, so that only new ones fail later; exits 0 once written.")
    Path writeBaseline;

    @Option(names = "--junit-xml", paramLabel = "FILE", description = "Also write the findings as JUnit XML, one test case per finding.")
    Path junitXml;

    @Option(names = "--sarif", paramLabel = "FILE", description = "Also write the findings as SARIF 2.1.0, located at their application frame.")
    Path sarif;

    @Option(names = "--docs-url", paramLabel = "URL", converter = DocsUrlConverter.class,
            description = "Where loopdiag's docs/agent.md is published (on your Git host, say): the SARIF rules then link to their section there.")
    URI docsUrl;

    @Option(names = "--source-root", paramLabel = "DIR", defaultValue = ".",
            description = "Where the sources are, to give each finding's file as a path under it (default: the current folder).")
    Path sourceRoot;

    static final class DocsUrlConverter implements picocli.CommandLine.ITypeConverter<URI> {
        @Override
        public URI convert(String value) {
            try {
                URI uri = new URI(value);
                if (("https".equalsIgnoreCase(uri.getScheme()) || "http".equalsIgnoreCase(uri.getScheme()))
                        && uri.getHost() != null && uri.getFragment() == null) {
                    return uri;
                }
            } catch (URISyntaxException e) {
                // refused below, with the same message
            }
            throw new picocli.CommandLine.TypeConversionException("'" + Text.printable(value)
                    + "' is not an http(s) address without a #fragment (the rules add their own)");
        }
    }

    static final class Kinds extends java.util.ArrayList<String> {
        Kinds() {
            super(Kind.ids());
        }
    }

    static final class KindConverter implements picocli.CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (Kind.of(value) == null) {
                throw new picocli.CommandLine.TypeConversionException("'" + Text.printable(value) + "' is not a kind (kinds: "
                        + String.join(", ", Kind.ids()) + ")");
            }
            return value;
        }
    }
}
