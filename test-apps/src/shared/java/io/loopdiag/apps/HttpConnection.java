package io.loopdiag.apps;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection of a scenario's own client to 127.0.0.1, on a plain blocking
 * socket: {@link #send} writes a request and reads its whole answer. For the answers the
 * scenarios' servers give: framed by {@code Content-Length}, never chunked. Its user is a client
 * thread, never a loop.
 */
final class HttpConnection implements Closeable {
    /** An answer's status code and body. */
    record Answer(int status, String body) {
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    HttpConnection(int port) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Sends {@code method path} with {@code body} (none if null) and returns the answer. */
    Answer send(String method, String path, String body) throws IOException {
        byte[] content = body == null ? new byte[0] : body.getBytes(UTF_8);
        String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + (body == null ? "" : "Content-Type: text/plain\r\nContent-Length: " + content.length + "\r\n") + "\r\n";
        out.write(head.getBytes(US_ASCII));
        out.write(content);
        out.flush();
        return readAnswer();
    }

    private Answer readAnswer() throws IOException {
        String statusLine = readLine();
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP answer: '" + statusLine + "'");
        }
        int length = -1;
        for (String line = readLine(); !line.isEmpty(); line = readLine()) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
                length = Integer.parseInt(line.substring(colon + 1).trim());
            }
        }
        if (length < 0) {
            throw new IOException("an answer without Content-Length: '" + statusLine + "'");
        }
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new EOFException("the connection ended inside an answer's body");
        }
        return new Answer(Integer.parseInt(parts[1]), new String(body, UTF_8));
    }

    /** A header line without its CRLF. */
    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new EOFException("the connection ended inside an answer's header");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(US_ASCII);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
