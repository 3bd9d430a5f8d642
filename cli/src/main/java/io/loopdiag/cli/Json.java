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
        static final ObjectMapper INSTANCE = new ObjectMapper();
    }
}
