package io.loopdiag.cli;

import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A running JVM of this user, by process id: what the CLI checks before it attaches, so that a
 * bad pid, a process that is not a JVM or another user's JVM is one line, not an attach error.
 */
final class Jvm {
    final long pid;

    private Jvm(long pid) {
        this.pid = pid;
    }

    /** Checks that {@code pid} names a running JVM of this user (root may look into any); does not attach. */
    static Jvm of(long pid) throws Failure {
        if (pid <= 0) {
            throw new Failure("'" + pid + "' is not a process id (a positive number)", ExitCodes.USAGE);
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty() || !isAlive(pid)) {
            throw new Failure("no process with id " + pid);
        }
        String me = ProcessHandle.current().info().user().orElse(null);
        String owner = process.get().info().user().orElse(null);
        if (owner == null || (me != null && !me.equals(owner) && !me.equals("root"))) {
            throw new Failure("process " + pid + " belongs to " + (owner != null ? "user '" + owner + "'" : "another user")
                    + "; loopdiag reaches only JVMs of its own user (the JDK's attach mechanism admits no other)");
        }
        if (!isJvm(pid)) {
            if (!isAlive(pid)) {
                throw new Failure("process " + pid + " exited");
            }
            throw new Failure("process " + pid + " is not a Java virtual machine");
        }
        return new Jvm(pid);
    }

    /**
     * Mapping libjvm, or (where there is no /proc to ask) listed by the attach mechanism; the list
     * is asked second because it costs the CLI's start 0.06 s (loading the attach provider, reading
     * every JVM's performance data).
     */
    private static boolean isJvm(long pid) {
        String id = Long.toString(pid);
        try {
            if (Files.readString(Path.of("/proc", id, "maps")).contains("/libjvm.")) {
                return true;
            }
        } catch (IOException | RuntimeException noProc) {
            // Not Linux, or gone: the attach mechanism says.
        }
        for (VirtualMachineDescriptor jvm : VirtualMachine.list()) {
            if (jvm.id().equals(id)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the JVM has exited, or does within a second: one killed with SIGKILL closes its
     * sockets a moment before it is gone, so a broken connection is checked against its end.
     */
    boolean hasExited() {
        for (int check = 0; check < 100; check++) {
            if (!isAlive(pid)) {
                return true;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** Running: not gone, and not a zombie that its parent has yet to reap (which ProcessHandle counts as alive). */
    private static boolean isAlive(long pid) {
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException | RuntimeException noProc) {
            return true; // no /proc to ask (not Linux): ProcessHandle's answer stands
        }
    }

    @Override
    public String toString() {
        return "JVM " + pid;
    }
}
