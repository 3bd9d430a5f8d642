package io.loopdiag.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.cli.support.Jvms;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Names from the application (hostile-names --serve: a loop and tasks named with an ANSI escape,
 * a carriage return, a bell, a newline, a C1 control) reach no terminal raw in ps, pstree and dump,
 * while their JSON keeps them exactly. (check's outputs: CheckCommandTest.)
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class EscapingIT {
    /** test-apps' HostileNames.HOSTILE, the loop's name. */
    private static final String LOOP = "red\u001b[31mRED\rback\u0007bell\nnext line\u009b2J \"quoted\" back\\slash \uD83D\uDE00 end";
    private static final List<String> TASKS = List.of("red\u001b[31mtask", "cr\roverwrite", "bell\u0007task", "two\nlines");

    private final Jvms jvms = new Jvms();

    @AfterEach
    void stop() throws InterruptedException {
        jvms.close();
    }

    @Test
    void controlCharactersInNamesAreEscapedInTextAndIntactInJson() throws Exception {
        Jvms.Scenario target = jvms.start("log=off", "hostile-names", "--serve");
        for (String verb : List.of("ps", "pstree", "dump")) {
            Jvms.Run run = jvms.cli(verb, target.pidText());
            assertEquals(0, run.exitCode(), verb + ": " + run.err());
            String shown = run.out().replace("\n", ""); // the views' own line ends; nothing else may be a control
            assertTrue(shown.codePoints().noneMatch(Character::isISOControl), verb + " printed a control character:\n" + run.out());
            // to a pipe, no view cuts a name: the escapes are whole
            String loop = "red\\u001b[31mRED\\u000dback\\u0007bell\\u000anext line\\u009b2J \"quoted\" back\\slash \uD83D\uDE00 end";
            assertTrue(run.out().contains(loop), verb + ":\n" + run.out());
            List<String> names = List.of("red\\u001b[31mtask", "cr\\u000doverwrite", "bell\\u0007task", "two\\u000alines");
            // pstree draws the four, which wait alike, as one line naming the first and the last
            for (String name : verb.equals("pstree") ? List.of(names.get(0), names.get(3)) : names) {
                assertTrue(run.out().contains(name), verb + " shows " + name + ":\n" + run.out());
            }
        }
        JsonNode dump = new ObjectMapper().readTree(jvms.cli("dump", "--json", target.pidText()).out());
        JsonNode loop = dump.path("loops").get(0);
        assertEquals(LOOP, loop.path("name").asText());
        List<String> names = new ArrayList<>();
        loop.path("tasks").forEach(task -> names.add(task.path("name").asText()));
        assertTrue(names.containsAll(TASKS), "the JSON keeps the names exactly: " + names);
    }
}
