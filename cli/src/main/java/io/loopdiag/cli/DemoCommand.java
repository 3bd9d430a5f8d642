package io.loopdiag.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The README's main job. Until the agent and the dumps exist it shows the loop itself: it starts
 * the test-apps echo server (a loop-core loop) in a child JVM, talks to it over TCP and stops it.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        header = "Starts a test-apps service on the loop and shows it working.")
final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--apps", paramLabel = "JAR", description = "test-apps.jar (default: the one built beside this jar)")
    Path appsJar;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Path apps = appsJar != null ? appsJar : Paths.appsJar();
        if (!Files.isRegularFile(apps)) {
            spec.commandLine().getErr().println("loopdiag: no test-apps jar at " + apps + " (build with ./build package)");
            return ExitCodes.USAGE;
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        Process server = new ProcessBuilder(java, "-jar", apps.toString(), "echo-server", "--port", "0")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader serverOut = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String banner = serverOut.readLine();
            if (banner == null || !banner.startsWith("echo-server listening on ")) {
                spec.commandLine().getErr().println("loopdiag: the echo server did not start (it printed: " + banner + ")");
                return ExitCodes.FINDINGS_OR_FAILURE;
            }
            String address = banner.substring("echo-server listening on ".length());
            out.println("started the echo server in JVM " + server.pid() + " on " + address);
            int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                socket.setSoTimeout(5_000);
                OutputStream toServer = socket.getOutputStream();
                BufferedReader fromServer = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                for (String line : List.of("hello, loop", "every byte comes back", "in order")) {
                    toServer.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                    toServer.flush();
                    out.println("  sent " + quote(line) + ", got back " + quote(fromServer.readLine()));
                }
            }
            out.println("stopping JVM " + server.pid() + "; the agent and the task dumps come next (see README)");
            return ExitCodes.OK;
        } finally {
            server.destroy();
            if (!server.waitFor(5, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    private static String quote(String text) {
        return text == null ? "<nothing: the server closed the connection>" : '"' + text + '"';
    }
}
