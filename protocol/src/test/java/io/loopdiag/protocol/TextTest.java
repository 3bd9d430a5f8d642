package io.loopdiag.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class TextTest {

    @Test
    void plainTextIsReturnedAsItIs() {
        String text = "fetch 'quote' \"CHF\" back\\slash, caf\u00e9 \u4e2d\u6587 \uD83D\uDE00";
        assertSame(text, Text.printable(text));
    }

    @ParameterizedTest(name = "U+{0} is escaped")
    @CsvSource({
        "0000", "0007", "0009", "000a", "000d", "001b", "001f", // C0 controls: bell, tab, newline, return, escape
        "007f", "0080", "009b", "009f",                         // DEL and C1 controls (0x9b is a CSI)
        "2028", "2029",                                         // line and paragraph separators
        "061c", "200e", "200f", "202a", "202e", "2066", "2069", // bidirectional controls
        "d800", "dbff", "dc00", "dfff",                         // lone surrogates
        "fffd", "fffe", "ffff"})
    void aCharacterThatCouldRewriteAScreenOrBreakXmlIsEscaped(String hex) {
        char c = (char) Integer.parseInt(hex, 16);
        assertEquals("a\\u" + hex + "b", Text.printable("a" + c + "b"));
    }

    @Test
    void aSurrogatePairIsOneCharacterAndKept() {
        assertEquals("x\uD83D\uDE00y", Text.printable("x\uD83D\uDE00y"));
        assertEquals("\\ud83dx", Text.printable("\uD83Dx"), "a high surrogate alone");
        assertEquals("x\\ude00", Text.printable("x\uDE00"), "a low surrogate alone");
        assertEquals("\uD83D\uDE00\\ud83d", Text.printable("\uD83D\uDE00\uD83D"), "a pair, then a lone one at the end");
    }

    @Test
    void escapesKeepTheRestInPlace() {
        assertEquals("red\\u001b[31mRED\\u000dback", Text.printable("red\u001b[31mRED\rback"));
    }

    @Test
    void anExcerptIsCutAtEightyCharactersAndSaysHowLongTheTextWas() {
        assertEquals("short", Text.excerpt("short"));
        String excerpt = Text.excerpt("x".repeat(500));
        assertEquals("x".repeat(80) + "... (500 characters)", excerpt);
        assertTrue(Text.excerpt("\n".repeat(100)).startsWith("\\u000a"), "escaped before it is cut");
    }
}
