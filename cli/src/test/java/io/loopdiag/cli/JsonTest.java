package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** The CLI's trees of a dump: equal strings, a stack's frames above all, are one node. */
class JsonTest {
    @Test
    void equalStringsOfATreeShareOneNode() throws Exception {
        JsonNode tree = Json.mapper().readTree("""
                {"tasks": [{"stack": ["at app.Worker.run(Worker.java:12)"]},
                           {"stack": ["at app.Worker.run(Worker.java:12)"]}],
                 "name": "at app.Worker.run(Worker.java:12)"}""");
        JsonNode first = tree.path("tasks").path(0).path("stack").path(0);
        assertSame(first, tree.path("tasks").path(1).path("stack").path(0));
        assertSame(first, tree.path("name"));
        assertEquals("at app.Worker.run(Worker.java:12)", first.asText());
    }
}
