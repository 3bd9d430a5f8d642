package io.loopdiag.cli;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import io.loopdiag.protocol.Control;
import io.loopdiag.protocol.Text;
import java.io.IOException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The JDK's attach mechanism (same OS user only), with a limit on a target's silence: a stopped
 * or starved JVM never answers, and must not hang the CLI, nor {@code list} for all the others.
 */
final class Attach {
    /**
     * How long a target may stay silent (no answer to the attach, no byte of a dump) before the
     * CLI gives up on it. The system property {@code loopdiag.silenceMillis} changes it (tests).
     */
    static final Duration SILENCE_LIMIT = Duration.ofMillis(Long.getLong("loopdiag.silenceMillis", 10_000));

    private Attach() {
    }

    /** The path of the agent's control socket in {@code jvm}, or null when the agent does not run there. */
    static String controlSocket(Jvm jvm) throws Failure {
        return systemProperties(jvm).getProperty(Control.PROPERTY);
    }

    /** {@code jvm}'s system properties; a JVM that does not answer within {@link #SILENCE_LIMIT} is given up on. */
    static Properties systemProperties(Jvm jvm) throws Failure {
        CompletableFuture<Properties> answer = new CompletableFuture<>();
        Thread asking = new Thread(() -> {
            try {
                VirtualMachine vm = open(jvm);
                try {
                    answer.complete(vm.getSystemProperties());
                } finally {
                    close(vm);
                }
            } catch (Throwable t) {
                answer.completeExceptionally(t);
            }
        }, "loopdiag-attach");
        asking.setDaemon(true); // if the JVM never answers, nothing waits for this thread
        asking.start();
        try {
            return answer.get(SILENCE_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw silent(jvm);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Failure failure) {
                throw failure;
            }
            throw e.getCause() instanceof IOException io ? lost(jvm, io)
                    : new Failure("cannot attach to JVM " + jvm.pid + " (" + Text.printable(String.valueOf(e.getCause())) + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted");
        }
    }

    /** Attaches to {@code jvm}; the caller closes it with {@link #close}. */
    static VirtualMachine open(Jvm jvm) throws Failure {
        try {
            return VirtualMachine.attach(Long.toString(jvm.pid));
        } catch (AttachNotSupportedException | IOException e) {
            if (jvm.hasExited()) {
                throw new Failure("JVM " + jvm.pid + " exited");
            }
            // Attach disabled (-XX:+DisableAttachMechanism) or out of reach: the agent's signal is the other door.
            throw new Failure("cannot attach to JVM " + jvm.pid + " (" + Text.printable(String.valueOf(e.getMessage())) + ")"
                    + (e instanceof AttachNotSupportedException
                            ? "; with the agent option signal=USR1 it writes its dump on 'kill -USR1 " + jvm.pid + "'" : ""));
        }
    }

    static void close(VirtualMachine vm) {
        try {
            vm.detach();
        } catch (IOException ignored) {
            // Detaching only closes our end.
        }
    }

    /** {@code jvm} stayed silent past the limit. */
    static Failure silent(Jvm jvm) {
        return new Failure("JVM " + jvm.pid + " did not answer for " + SILENCE_LIMIT.toSeconds()
                + " s (stopped, or starved of CPU); gave up on it");
    }

    /** The connection to {@code jvm} broke: it exited, or something else went wrong. */
    static Failure lost(Jvm jvm, IOException e) {
        if (jvm.hasExited()) {
            return new Failure("JVM " + jvm.pid + " exited during the request");
        }
        return new Failure("cannot talk to the agent in JVM " + jvm.pid + " (" + e.getMessage() + ")");
    }
}
