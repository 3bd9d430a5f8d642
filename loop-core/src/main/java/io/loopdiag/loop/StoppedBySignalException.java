package io.loopdiag.loop;

/**
 * Thrown by {@link EventLoop#run(Coroutine.Body, String...)} when one of the signals it was given
 * cancelled the main task, once every task has been cleaned up: asyncio's
 * {@code KeyboardInterrupt} out of {@code asyncio.run}. A {@code main} method ends with
 * {@code System.exit(e.exitStatus())}, the status a shell gives a process the signal killed.
 */
public class StoppedBySignalException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String signal;
    private final int number;

    public StoppedBySignalException(String signal, int number) {
        super("stopped by SIG" + signal);
        this.signal = signal;
        this.number = number;
    }

    /** The signal's name without {@code SIG}, like {@code TERM}. */
    public String signal() {
        return signal;
    }

    /** The signal's number on this platform. */
    public int number() {
        return number;
    }

    /** {@code 128 + number}: 130 for SIGINT, 143 for SIGTERM. */
    public int exitStatus() {
        return 128 + number;
    }
}
