package io.loopdiag.loop.net;

/** The stream tests' server handler: echoes each line back until the client's EOF. */
final class EchoLines {
    private EchoLines() {
    }

    static void handle(StreamReader reader, StreamWriter writer) throws Exception {
        byte[] line;
        while ((line = reader.readLine()).length > 0) {
            writer.write(line);
            writer.drain();
        }
    }
}
