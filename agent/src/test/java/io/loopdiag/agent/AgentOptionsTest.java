package io.loopdiag.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AgentOptionsTest {

    @Test
    void noOptionsMeansTheDefaults() {
        AgentOptions options = AgentOptions.parse(null);
        assertEquals(Duration.ofMillis(100), options.slow());
        assertEquals(AgentOptions.Blocking.WARN, options.blocking());
        assertNull(options.report());
        assertTrue(options.logToStderr());
        assertEquals(List.of(), options.allow());
        assertEquals(options, AgentOptions.parse(""));
    }

    @Test
    void everyOptionIsRead() {
        AgentOptions options = AgentOptions.parse(
                "slow=250ms,blocking=throw,report=target/loopdiag.json,log=off,allow=com.acme.Cache#load;com.acme.Boot");
        assertEquals(Duration.ofMillis(250), options.slow());
        assertEquals(AgentOptions.Blocking.THROW, options.blocking());
        assertEquals(Path.of("target/loopdiag.json"), options.report());
        assertFalse(options.logToStderr());
        assertEquals(List.of("com.acme.Cache#load", "com.acme.Boot"), options.allow());
    }

    @Test
    void percentPInTheReportPathIsTheProcessId() {
        AgentOptions options = AgentOptions.parse("report=target/loopdiag/loopdiag-%p.json");
        assertEquals(Path.of("target/loopdiag/loopdiag-" + ProcessHandle.current().pid() + ".json"), options.report());
    }

    @Test
    void theSignalIsUsr1AndTheDumpPathTakesThePid() {
        AgentOptions options = AgentOptions.parse("signal=usr1,dump=/tmp/dump-%p.json");
        assertEquals("USR1", options.signal());
        assertEquals(Path.of("/tmp/dump-" + ProcessHandle.current().pid() + ".json"), options.dump());
        assertEquals("USR1", AgentOptions.parse("signal=SIGUSR1").signal());
        assertNull(AgentOptions.parse("signal=USR1").dump(), "no path: text on stderr");
        assertNull(AgentOptions.parse("slow=1s").signal(), "off by default");
    }

    @Test
    void statisticsAreOnUnlessTurnedOff() {
        assertTrue(AgentOptions.parse("slow=1s").statistics());
        assertFalse(AgentOptions.parse("statistics=off").statistics());
        assertTrue(AgentOptions.parse("statistics=on").statistics());
    }

    @ParameterizedTest(name = "slow={0} is {1} ns")
    @CsvSource({"1s,1000000000", "250ms,250000000", "500us,500000", "2m,120000000000", "7ns,7"})
    void durationsTakeAUnit(String text, long nanos) {
        assertEquals(Duration.ofNanos(nanos), AgentOptions.parse("slow=" + text).slow());
    }

    /** Each malformed string is refused with one line that names the option at fault. */
    @ParameterizedTest(name = "[{index}] {0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
        "colour=red                  | unknown option 'colour'",
        "slow=                       | option 'slow' has an empty value",
        "slow                        | option 'slow' has no value",
        "slow=fast                   | option 'slow' needs a duration",
        "slow=100                    | option 'slow' needs a duration",
        "slow=-5ms                   | option 'slow' needs a duration",
        "slow=0ms                    | option 'slow' must be longer than zero",
        "slow=99999999999s           | option 'slow' needs a duration",
        "slow=2h                     | option 'slow' needs a duration",
        "slow=61m                    | option 'slow' is longer than 60 minutes",
        "slow=1s,slow=2s             | option 'slow' is given twice",
        "blocking=maybe              | option 'blocking' is warn, throw or off",
        "log=stdout                  | option 'log' is stderr or off",
        "slow=1s,,log=off            | an empty option",
        "slow=1s,                    | an empty option",
        "allow=com.acme.Cache##load  | option 'allow' takes Class#method patterns",
        "allow=a.B#c;                | option 'allow' takes Class#method patterns",
        "slow=1s;blocking=off        | option 'slow' needs a duration",
        "=                           | an option without a name",
        "=5,slow=1s                  | an option without a name",
        "signal=USR2                 | option 'signal' is USR1",
        "signal=QUIT                 | option 'signal' is USR1",
        "dump=/tmp/d.json            | give 'signal' as well",
        "statistics=no               | option 'statistics' is on or off",
    })
    void malformedOptionsAreRefusedNamingTheOption(String text, String expected) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse(text));
        assertTrue(refused.getMessage().contains(expected), refused.getMessage());
        assertEquals(1, refused.getMessage().lines().count(), refused.getMessage());
    }

    @Test
    void controlCharactersAreEscapedInTheMessage() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> AgentOptions.parse("slow=1\ns\u001b[31m"));
        assertEquals(1, refused.getMessage().lines().count(), refused.getMessage());
        assertTrue(refused.getMessage().contains("\\u000a"), refused.getMessage());
        assertFalse(refused.getMessage().contains("\u001b"), refused.getMessage());
    }

    @Test
    void aVeryLongStringIsQuotedCutShort() {
        String value = "9".repeat(100_000);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("slow=" + value));
        assertTrue(refused.getMessage().contains("option 'slow' needs a duration"), refused.getMessage());
        assertTrue(refused.getMessage().contains("... (100005 characters)"), refused.getMessage());
        assertTrue(refused.getMessage().length() < 400, refused.getMessage());
    }

    @Test
    void aMalformedReplacementCharacterFromBadUtf8IsRefusedAndShown() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> AgentOptions.parse("log=\uFFFD"));
        assertTrue(refused.getMessage().contains("\\ufffd"), refused.getMessage());
    }
}
