package io.loopdiag.bench.network;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** CPU time used so far, in nanoseconds, by this process or another one (Linux {@code /proc}). */
final class ProcessCpu {
    /**
     * {@code /proc} reports times in USER_HZ ticks, which the kernel fixes at 100 per second for
     * user space on every common architecture (it is not the kernel's own HZ).
     */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private ProcessCpu() {
    }

    /** This JVM's CPU time (all its threads), or empty if the platform does not tell. */
    static OptionalLong self() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            long nanos = os.getProcessCpuTime();
            return nanos < 0 ? OptionalLong.empty() : OptionalLong.of(nanos);
        }
        return OptionalLong.empty();
    }

    /**
     * The CPU time the whole machine has spent busy (user, nice, system, interrupts, steal: all but
     * idle and I/O wait) from {@code /proc/stat}, or empty if unreadable. Less the server's and the
     * client's, it is what other processes and the kernel's interrupt work took meanwhile.
     */
    static OptionalLong machineBusy() {
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...
            long busy = 0;
            for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
                busy += Long.parseLong(fields[i]);
            }
            return OptionalLong.of(busy * NANOS_PER_TICK);
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /** The user plus system time of process {@code pid} from {@code /proc/PID/stat}, or empty if unreadable. */
    static OptionalLong of(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // After the command name in parentheses (which may hold spaces): state is field 3,
            // utime and stime are fields 14 and 15 of the whole line.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return OptionalLong.of(ticks * NANOS_PER_TICK);
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }
}
