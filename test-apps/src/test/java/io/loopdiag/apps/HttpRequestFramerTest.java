package io.loopdiag.apps;

import static io.loopdiag.apps.HttpRequestFramer.MAX_HEADER_BYTES;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.loopdiag.apps.HttpRequestFramer.Verdict;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link HttpRequestFramer} fed strings, in one read or cut into reads of a few bytes. */
class HttpRequestFramerTest {
    private static final String GET = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: test\r\n\r\n";
    /** One read for the whole stream. */
    private static final int WHOLE = Integer.MAX_VALUE;

    private final HttpRequestFramer framer = new HttpRequestFramer();

    /** Scans {@code stream} in reads of {@code readBytes}; returns the requests they complete. */
    private int scan(String stream, int readBytes) {
        byte[] bytes = stream.getBytes(US_ASCII);
        int complete = 0;
        for (int from = 0; from < bytes.length; from += readBytes) {
            complete += framer.scan(Arrays.copyOfRange(bytes, from, (int) Math.min(bytes.length, (long) from + readBytes)));
        }
        return complete;
    }

    private int scan(String stream) {
        return scan(stream, WHOLE);
    }

    /** A request whose request line and header lines, CRLFs included, are {@code headerBytes} long. */
    private static String requestWithHeaderOf(int headerBytes) {
        String line = "GET / HTTP/1.1\r\n";
        return line + "X: " + "a".repeat(headerBytes - line.length() - "X: \r\n".length()) + "\r\n\r\n";
    }

    @Test
    void aSimpleGetIsOneRequestAndTheConnectionStaysOpen() {
        assertEquals(1, scan(GET));
        assertEquals(Verdict.KEEP_ALIVE, framer.verdict());
        assertFalse(framer.midRequest());
    }

    @Test
    void connectionCloseEndsTheStreamAfterItsRequest() {
        assertEquals(2, scan(GET + "GET / HTTP/1.1\r\nConnection: close\r\n\r\n" + GET), "up to the one that asked to close");
        assertEquals(Verdict.CLOSE, framer.verdict());
        assertEquals(0, scan(GET), "nothing after it is counted");
    }

    @Test
    void closeIsATokenOfTheConnectionHeader() {
        assertEquals(1, scan("GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n"));
        assertEquals(1, scan("GET / HTTP/1.1\r\nConnection: closed\r\nX-Connection: close\r\n\r\n"));
        assertEquals(Verdict.KEEP_ALIVE, framer.verdict(), "neither says close");
        assertEquals(1, scan("GET / HTTP/1.1\r\nConnection: upgrade , close\r\n\r\n" + GET));
        assertEquals(Verdict.CLOSE, framer.verdict());
    }

    @Test
    void http10IsKeptAliveUnlessItAsksToClose() {
        // RFC 9112 closes an HTTP/1.0 connection by default; the answer says keep-alive to every client instead.
        assertEquals(2, scan("GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\nHost: x\r\n\r\n"));
        assertEquals(Verdict.KEEP_ALIVE, framer.verdict());
        assertEquals(1, scan("GET / HTTP/1.0\r\nConnection: close\r\n\r\n" + GET));
        assertEquals(Verdict.CLOSE, framer.verdict());
    }

    @Test
    void pipelinedRequestsInOneReadAreCountedTogether() {
        assertEquals(12, scan(GET.repeat(10) + "POST /data HTTP/1.1\r\nContent-Length: 5\r\n\r\nGET /" + GET),
                "ten GETs, a POST whose body looks like a request line, one more GET");
        assertEquals(Verdict.KEEP_ALIVE, framer.verdict());
        assertFalse(framer.midRequest());
    }

    @Test
    void aStreamCutAtAnyByteGivesTheSameRequests() {
        String stream = GET + "POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\nGET /\r\n\r\n"
                + "GET / HTTP/1.1\r\nConnection: close\r\n\r\n";
        for (int cut = 0; cut <= stream.length(); cut++) {
            HttpRequestFramer fresh = new HttpRequestFramer();
            int first = fresh.scan(stream.substring(0, cut).getBytes(US_ASCII));
            int second = fresh.scan(stream.substring(cut).getBytes(US_ASCII));
            assertEquals(3, first + second, "cut at " + cut);
            assertEquals(Verdict.CLOSE, fresh.verdict(), "cut at " + cut);
        }
    }

    @ParameterizedTest(name = "reads of {0} bytes")
    @ValueSource(ints = {1, 2, 3, 5, 7})
    void aStreamInSmallReadsGivesTheSameRequests(int readBytes) {
        assertEquals(12, scan(GET.repeat(10) + "POST /data HTTP/1.1\r\nContent-Length: 5\r\n\r\nGET /" + GET, readBytes));
        assertEquals(Verdict.KEEP_ALIVE, framer.verdict());
        assertFalse(framer.midRequest());
    }

    @Test
    void aBodyOfContentLengthBytesBelongsToItsRequest() {
        assertEquals(0, scan("POST / HTTP/1.1\r\nContent-Length: 14\r\n\r\n"));
        assertTrue(framer.midRequest(), "the body is still to come");
        assertEquals(0, scan("\r\n\r\nGET / "), "bytes of the body that look like requests are the body's");
        assertEquals(2, scan("HTTP" + GET), "the body's last bytes end the POST, then a GET");
        assertFalse(framer.midRequest());
        assertEquals(1, scan("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"), "an empty body ends at the empty line");
    }

    @Test
    void aRequestWithABodyThatAsksToCloseClosesAfterItsBody() {
        assertEquals(0, scan("POST / HTTP/1.1\r\nConnection: close\r\nContent-Length: 3\r\n\r\nab"));
        assertEquals(Verdict.KEEP_ALIVE, framer.verdict());
        assertEquals(1, scan("c" + GET));
        assertEquals(Verdict.CLOSE, framer.verdict());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Connection: close", "CONNECTION: CLOSE", "connection: Close", "cOnNeCtIoN:close"})
    void theConnectionHeaderIsFoundInAnyCase(String header) {
        assertEquals(1, scan("GET / HTTP/1.1\r\n" + header + "\r\n\r\n"));
        assertEquals(Verdict.CLOSE, framer.verdict());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Content-Length", "CONTENT-LENGTH", "content-length", "cOnTeNt-LeNgTh"})
    void theContentLengthHeaderIsFoundInAnyCase(String name) {
        assertEquals(2, scan("POST / HTTP/1.1\r\n" + name + ": " + GET.length() + "\r\n\r\n" + GET + GET),
                "the POST, whose body is no request, and the GET after it");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Transfer-Encoding: chunked", "TRANSFER-ENCODING: chunked", "transfer-encoding: gzip, chunked"})
    void aTransferEncodingInAnyCaseCannotBeFramed(String header) {
        assertEquals(1, scan(GET + "POST / HTTP/1.1\r\n" + header + "\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + GET));
        assertEquals(Verdict.UNFRAMEABLE, framer.verdict());
    }

    @ParameterizedTest(name = "Content-Length: {0}")
    @ValueSource(strings = {"", "five", "-1", "5, 5", "99999999999999999999"})
    void aBadContentLengthCannotBeFramed(String value) {
        assertEquals(1, scan(GET + "POST / HTTP/1.1\r\nContent-Length: " + value + "\r\n\r\nhello" + GET));
        assertEquals(Verdict.UNFRAMEABLE, framer.verdict());
    }

    @Test
    void aMalformedRequestLineIsFramedByItsLinesNotRefused() {
        // http-server answers every request alike, so it frames and never parses the request line.
        assertEquals(3, scan("NOT A REQUEST LINE\r\n\r\nGET /\r\n\r\n" + GET));
        assertEquals(Verdict.KEEP_ALIVE, framer.verdict());
    }

    @Test
    void emptyLinesBeforeARequestLineAreSkipped() {
        assertEquals(1, scan("\r\n\r\n\n" + GET), "stray empty lines are no requests (RFC 9112, 2.2)");
        assertEquals(2, scan("GET / HTTP/1.1\n\nGET / HTTP/1.1\nHost: x\n\n"), "lines may end in a bare LF");
        assertFalse(framer.midRequest());
    }

    @ParameterizedTest(name = "reads of {0} bytes")
    @ValueSource(ints = {WHOLE, 1, 1000})
    void aHeaderSectionOfTheLimitIsAcceptedOneByteMoreRefused(int readBytes) {
        assertEquals(1, scan(requestWithHeaderOf(MAX_HEADER_BYTES), readBytes));
        assertEquals(Verdict.KEEP_ALIVE, framer.verdict());
        assertEquals(1, scan(GET + requestWithHeaderOf(MAX_HEADER_BYTES + 1), readBytes), "the requests before it are counted");
        assertEquals(Verdict.HEADER_TOO_LARGE, framer.verdict());
    }

    @ParameterizedTest(name = "reads of {0} bytes")
    @ValueSource(ints = {WHOLE, 1, 1000})
    void aRequestLineOfTheLimitIsAcceptedOneByteMoreRefused(int readBytes) {
        String longest = "GET /" + "a".repeat(MAX_HEADER_BYTES - "GET / HTTP/1.1\r\n".length()) + " HTTP/1.1\r\n";
        assertEquals(MAX_HEADER_BYTES, longest.length());
        assertEquals(1, scan(longest + "\r\n", readBytes));
        assertEquals(Verdict.KEEP_ALIVE, framer.verdict());
        assertEquals(0, scan("x" + longest + "\r\n", readBytes));
        assertEquals(Verdict.HEADER_TOO_LARGE, framer.verdict());
    }

    @Test
    void manySmallHeaderLinesOverTheLimitAreRefused() {
        assertEquals(0, scan("GET / HTTP/1.1\r\n" + "X-Many: 1234567890\r\n".repeat(MAX_HEADER_BYTES / 20) + "\r\n"));
        assertEquals(Verdict.HEADER_TOO_LARGE, framer.verdict());
    }

    @Test
    void aLineThatNeverEndsIsRefusedOnceOverTheLimit() {
        assertEquals(0, scan("GET / HTTP/1.1\r\nX-Big: " + "a".repeat(MAX_HEADER_BYTES), 4096));
        assertEquals(Verdict.HEADER_TOO_LARGE, framer.verdict(), "refused before the line's end arrives");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"GET / HT", "GET / HTTP/1.1\r", "GET / HTTP/1.1\r\nHost: x\r\n", "GET / HTTP/1.1\r\nHost: x\r\n\r",
        "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhell"})
    void aRequestCutShortIsNotCountedAndIsSeenUnfinished(String cutShort) {
        assertEquals(1, scan(GET + cutShort));
        assertTrue(framer.midRequest(), "the stream stops inside a request");
        assertEquals(Verdict.KEEP_ALIVE, framer.verdict());
    }
}
