package io.loopdiag.loop;

/**
 * A lazy piece of async code: nothing runs until it is {@linkplain Async#await(Coroutine)
 * awaited} (it then runs inside the awaiting task) or {@linkplain EventLoop#createTask(Coroutine)
 * made a task}. It runs at most once. Creating one and dropping it is the "never awaited" bug that
 * the agent reports. It plays the part of Python's {@code async def} call:
 *
 * <pre>{@code
 * Coroutine<String> fetch(String key) {
 *     return Coroutine.of("fetch", () -> { sleep(Duration.ofMillis(5)); return key; });
 * }
 * }</pre>
 */
public final class Coroutine<T> {

    /** The code of a coroutine or task; it may await and may throw. */
    @FunctionalInterface
    public interface Body<T> {
        T call() throws Exception;
    }

    private final String name;
    private final Body<T> body;
    private boolean consumed; // set once awaited or made a task

    private Coroutine(String name, Body<T> body) {
        if (body == null) {
            throw new NullPointerException("body");
        }
        this.name = name;
        this.body = body;
    }

    /** A coroutine named {@code name} (shown in logs and dumps) running {@code body}. */
    public static <T> Coroutine<T> of(String name, Body<T> body) {
        return new Coroutine<>(name, body);
    }

    public String name() {
        return name != null ? name : body.getClass().getName();
    }

    /** The name given at creation, or null. */
    String givenName() {
        return name;
    }

    /** True once the coroutine was awaited or made a task. */
    public boolean isConsumed() {
        return consumed;
    }

    Body<T> consume() {
        if (consumed) {
            throw new IllegalStateException("coroutine '" + name() + "' was already awaited or made a task");
        }
        consumed = true;
        return body;
    }

    @Override
    public String toString() {
        return "Coroutine[" + name() + (consumed ? "" : ", not awaited") + "]";
    }
}
