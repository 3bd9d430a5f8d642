package example;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.Socket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Through a real connection: passes whether or not the lookup blocks the loop; only loopdiag sees the difference. */
class RateServerTest {
    @Test
    @Timeout(10)
    void answersTheRateOfAFreshCurrency() throws Exception {
        try (RateServer server = RateServer.start(); Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            socket.getOutputStream().write("GET /rate/GBP HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".getBytes(US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), US_ASCII); // the server closes after it
            assertTrue(answer.startsWith("HTTP/1.1 200 OK\r\n"), answer);
            assertTrue(answer.endsWith("\r\n\r\n127"), answer);
        }
    }
}
