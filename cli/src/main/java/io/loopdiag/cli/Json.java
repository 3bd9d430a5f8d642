package io.loopdiag.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The CLI's JSON machinery, in one place. The streaming factory is cheap; the mapper (trees,
 * pretty printing) loads hundreds of classes, half of a cold start (docs/decisions.md), so it is
 * made on first use: {@code dump --json} and {@code --help} never pay for it.
 */
final class Json {
    /** Parsers and generators that read and write as a stream, without trees. */
    static final JsonFactory STREAMS = new JsonFactory();

    private Json() {
    }

    /** The mapper, for trees; its parsers can read a value as a tree. */
    static ObjectMapper mapper() {
        return Mapper.INSTANCE;
    }

    /** Prints {@code document} indented, then a line break: what every verb's {@code --json} writes of its own. */
    static void print(com.fasterxml.jackson.databind.JsonNode document, java.io.PrintWriter out) {
        try {
            out.println(mapper().writerWithDefaultPrettyPrinter().writeValueAsString(document));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a tree made here cannot fail to print", e);
        }
    }

    private static final class Mapper {
        static final ObjectMapper INSTANCE = new ObjectMapper().setNodeFactory(new SharedText());
    }

    /**
     * Trees whose equal strings share one node: a dump of 100,000 tasks repeats a few stacks'
     * frames over a million times, and its tree holds 178 MB with a node per string, 102 MB with
     * them shared (docs/cli.md, "Start-up"). Shares the first {@link #MAX_SHARED} strings it sees,
     * and makes plain nodes past them.
     */
    static final class SharedText extends com.fasterxml.jackson.databind.node.JsonNodeFactory {
        private static final int MAX_SHARED = 1 << 16;
        private final java.util.Map<String, com.fasterxml.jackson.databind.node.TextNode> shared = new java.util.HashMap<>();

        @Override
        public synchronized com.fasterxml.jackson.databind.node.TextNode textNode(String text) {
            com.fasterxml.jackson.databind.node.TextNode node = shared.get(text);
            if (node == null) {
                node = super.textNode(text);
                if (node != null && shared.size() < MAX_SHARED) {
                    shared.put(text, node);
                }
            }
            return node;
        }
    }
}
