package io.loopdiag.cli.support;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.tools.attach.VirtualMachine;
import io.loopdiag.protocol.Control;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The child JVMs of the CLI's end-to-end tests: test-apps scenarios (with the packaged agent or
 * not) and the packaged CLI, run by process id as a user runs it. Whatever it starts, {@link
 * #close} kills; a test class closes it in {@code @AfterEach}.
 */
public final class Jvms implements AutoCloseable {
    public static final String JAVA = ProcessHandle.current().info().command().orElseThrow();
    public static final Path CLI = Path.of("target/loopdiag.jar").toAbsolutePath();
    public static final Path AGENT = Path.of("../agent/target/loopdiag-agent.jar").toAbsolutePath();
    public static final Path APPS = Path.of("../test-apps/target/test-apps.jar").toAbsolutePath();

    private final List<Process> started = new ArrayList<>();

    /** What the CLI printed and returned. */
    public record Run(int exitCode, String out, String err) {
    }

    /** A scenario that said it is ready, in the line {@code ready}; its stdout goes on. */
    public record Scenario(Process process, BufferedReader out, String ready) {
        public long pid() {
            return process.pid();
        }

        public String pidText() {
            return Long.toString(process.pid());
        }
    }

    /**
     * Starts {@code scenario args...}, with the agent and {@code agentOptions} unless those are
     * null, and returns once its first line (which it prints when ready) has come.
     */
    public Scenario start(String agentOptions, String scenario, String... args) throws IOException {
        return start(List.of(), agentOptions, scenario, args);
    }

    /** {@link #start} with {@code jvmOptions} before the agent's. */
    public Scenario start(List<String> jvmOptions, String agentOptions, String scenario, String... args) throws IOException {
        Process target = track(new ProcessBuilder(command(jvmOptions, agentOptions, scenario, args))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start());
        BufferedReader out = new BufferedReader(new InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8));
        String ready = out.readLine();
        assertTrue(ready != null && (ready.endsWith(" ready") || ready.endsWith(" spinning") || ready.startsWith("echo-server listening")),
                scenario + " started: " + ready);
        return new Scenario(target, out, ready);
    }

    /**
     * Starts {@code scenario args...} like {@link #start}, without waiting for anything: for a
     * scenario that runs to its end ({@link #finish} waits for it and collects what it printed).
     */
    public Process launch(String agentOptions, String scenario, String... args) throws IOException {
        return track(new ProcessBuilder(command(List.of(), agentOptions, scenario, args)).start());
    }

    /** {@code java jvmOptions... [-javaagent:AGENT=agentOptions] -jar test-apps.jar scenario args...}. */
    private static List<String> command(List<String> jvmOptions, String agentOptions, String scenario, String... args) {
        List<String> command = new ArrayList<>(List.of(JAVA));
        command.addAll(jvmOptions);
        if (agentOptions != null) {
            command.add("-javaagent:" + AGENT + "=" + agentOptions);
        }
        command.addAll(List.of("-jar", APPS.toString(), scenario));
        command.addAll(List.of(args));
        return command;
    }

    /**
     * The agent's answer to the control command {@code command} ({@code info}, {@code dump}) in
     * JVM {@code pid}, as it wrote it: read from its control socket, found as the CLI finds it.
     */
    public static String ask(long pid, String command) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
        String socket;
        try {
            socket = vm.getSystemProperties().getProperty(Control.PROPERTY);
        } finally {
            vm.detach();
        }
        assertTrue(socket != null, "JVM " + pid + " runs the agent");
        try (SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            channel.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.UTF_8)));
            return read(Channels.newInputStream(channel));
        }
    }

    /** Kills {@code process} with the others at the end. */
    public Process track(Process process) {
        started.add(process);
        return process;
    }

    /** Starts the CLI with {@code args}, as {@code java [jvmOptions] -jar loopdiag.jar args}, behind {@code prefix} (setpriv...). */
    public Process startCli(List<String> prefix, Path jar, List<String> jvmOptions, String... args) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(JAVA);
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(List.of(args));
        return track(new ProcessBuilder(command).start());
    }

    /** Runs the CLI to its end. */
    public Run cli(String... args) throws Exception {
        return cli(List.of(), CLI, List.of(), args);
    }

    public Run cli(List<String> prefix, Path jar, List<String> jvmOptions, String... args) throws Exception {
        return finish(startCli(prefix, jar, jvmOptions, args));
    }

    /** Waits for a started CLI to end and collects what it printed. */
    public static Run finish(Process cli) throws Exception {
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(cli.getErrorStream()));
        String out = read(cli.getInputStream());
        assertTrue(cli.waitFor(60, TimeUnit.SECONDS), "the CLI ended");
        return new Run(cli.exitValue(), out, err.join());
    }

    public static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (Process process : started) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        started.clear();
    }
}
