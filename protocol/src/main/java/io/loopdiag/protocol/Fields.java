package io.loopdiag.protocol;

/**
 * The field names of loopdiag's JSON documents. Names shared by several documents (a finding's
 * {@code kind}, a task's {@code stack}) are one constant; the JSON Schema files in
 * {@code docs/schemas/} give each document's shape.
 */
public final class Fields {
    // ---- every document ---------------------------------------------------------------------------
    /** The document's schema id ({@link Schemas}). */
    public static final String SCHEMA = "schema";
    /** The process id of the JVM the document is about. */
    public static final String PID = "pid";
    /** The agent's refusal of a control command: {@code {"error": "..."}}, alone in its document. */
    public static final String ERROR = "error";

    // ---- the report (loopdiag-report/1) -------------------------------------------------------------
    /** When the agent started (ISO-8601). */
    public static final String STARTED = "started";
    /** When a report or baseline was written (ISO-8601). */
    public static final String WRITTEN = "written";
    /** The agent's options as the report states them. */
    public static final String OPTIONS = "options";
    public static final String SLOW_MILLIS = "slowMillis";
    public static final String BLOCKING = "blocking";
    /** What the agent's self-check found wrong at start: one line per problem; empty when all is instrumented. */
    public static final String SELF_CHECK = "selfCheck";
    /**
     * Why the agent refused its options and watched nothing, in a report it writes anyway (then
     * without {@link #OPTIONS}), so that a typo in them fails the CI gate instead of passing it.
     */
    public static final String REFUSED = "refused";

    // ---- findings (in the report, and under the dump's {@link #FINDINGS}) ---------------------------
    /** Occurrences by kind. */
    public static final String SUMMARY = "summary";
    /** Findings seen past the distinct ones the agent keeps, only counted. */
    public static final String DROPPED = "dropped";
    /** The distinct findings, oldest first. */
    public static final String DETECTIONS = "detections";
    /**
     * A finding's kind ({@link Kind}); in the dump, also a loop's ({@link LoopKinds}, absent from
     * a dump of an agent that writes none: loop-core) and what a task awaits ({@link AwaitKinds}).
     */
    public static final String KIND = "kind";
    /** A finding's loop name; in a list row, and in a task of a flattened dump, its loop's name. */
    public static final String LOOP = "loop";
    /** A finding's task, {@code 'name' (#id)}, or null for a plain callback. */
    public static final String TASK = "task";
    public static final String MESSAGE = "message";
    public static final String COUNT = "count";
    public static final String FIRST_SEEN = "firstSeen";
    public static final String LAST_SEEN = "lastSeen";
    public static final String LONGEST_MILLIS = "longestMillis";
    /** Frames, innermost first, each as {@link StackTraceElement#toString()} writes it. */
    public static final String STACK = "stack";
    /** Where a task or coroutine was created: frames, or null when not recorded. */
    public static final String CREATED_AT = "createdAt";

    // ---- the dump (loopdiag-dump/1) ----------------------------------------------------------------
    /** When the dump was taken (ISO-8601). */
    public static final String TAKEN = "taken";
    public static final String AGENT_VERSION = "agentVersion";
    public static final String LOOPS = "loops";
    /** The findings so far: {@link #SUMMARY}, {@link #DROPPED}, {@link #DETECTIONS}. */
    public static final String FINDINGS = "findings";
    /** A loop's or task's id; a foreign loop's is its thread's id. */
    public static final String ID = "id";
    /** A loop's or task's name; a foreign loop's is its thread's name. */
    public static final String NAME = "name";
    /** A loop's state ({@code running}, {@code idle}, {@code closed}) or a task's ({@code new}, {@code running}, {@code suspended}). */
    public static final String STATE = "state";
    /** The name of the thread running a loop, or null. */
    public static final String THREAD = "thread";
    public static final String READY_COUNT = "readyCount";
    public static final String TIMER_COUNT = "timerCount";
    public static final String DISPATCH_COUNT = "dispatchCount";
    public static final String TASK_COUNT = "taskCount";
    /** The channels registered on a Netty or Vert.x loop; absent when not known. */
    public static final String CHANNEL_COUNT = "channelCount";
    /** The callback a loop runs now (a foreign loop's unit of work), or null between them. */
    public static final String RUNNING = "running";
    public static final String DESCRIPTION = "description";
    public static final String RUNNING_MILLIS = "runningMillis";
    /** The id of the task a callback steps, or a task awaits; -1 or absent for none. */
    public static final String TASK_ID = "taskId";
    public static final String TASKS = "tasks";
    /** What a suspended task waits for, or null. */
    public static final String AWAITING = "awaiting";
    public static final String DUE_IN_MILLIS = "dueInMillis";
    /**
     * The ids of the tasks a wait is on: the awaited task, a gather's or a task group's running
     * children, a shield's inner task, a lock's holder, a semaphore's holders, a condition's lock
     * holder. Empty when no task can end the wait (a timer, I/O, an event, a worker); absent in a
     * dump of an agent older than this field.
     */
    public static final String WAITS_ON = "waitsOn";
    /** The thread running the work a task awaits off the loop: its {@link #NAME}, {@link #ID}, {@link #STATE}, {@link #STACK}. */
    public static final String WORKER = "worker";
    /** How many items the queue a task waits on holds. */
    public static final String SIZE = "size";
    /**
     * A wait for I/O: which way ({@code read}, {@code write}, {@code accept}, {@code connect}, {@code handshake},
     * {@code drain}, {@code close}; {@code recvfrom}, {@code sendto} for a datagram endpoint).
     */
    public static final String DIRECTION = "direction";
    /** A wait for I/O: the channel, by its peer's address (a server's or a datagram endpoint's own; a Unix socket's path). */
    public static final String CHANNEL = "channel";
    public static final String SUSPENDED_MILLIS = "suspendedMillis";
    /** In the summary ({@link Control#INFO}), a loop-core loop's few tasks that have waited longest, without stacks. */
    public static final String LONGEST_WAITING = "longestWaiting";
    /**
     * A loop's health over the last second (absent before the agent's first second): {@link
     * #INTERVAL_MILLIS}, the lag ({@link #LAG_SAMPLES}, {@link #LAG_P50_MILLIS}, {@link
     * #LAG_P99_MILLIS}, {@link #LAG_MAX_MILLIS}), {@link #UTILIZATION}, {@link #UNITS_PER_SECOND},
     * {@link #SUSPENDED_TASKS} and its findings by kind ({@link #SUMMARY}).
     */
    public static final String STATISTICS = "statistics";
    public static final String LAG_SAMPLES = "lagSamples";
    public static final String LAG_P50_MILLIS = "lagP50Millis";
    public static final String LAG_P99_MILLIS = "lagP99Millis";
    public static final String LAG_MAX_MILLIS = "lagMaxMillis";
    /** The share of the interval the loop ran work, 0 to 1. */
    public static final String UTILIZATION = "utilization";
    public static final String UNITS_PER_SECOND = "unitsPerSecond";
    public static final String SUSPENDED_TASKS = "suspendedTasks";

    // ---- ps and pstree (loopdiag-ps/1, loopdiag-pstree/1) ---------------------------------------------
    /** What a task awaits, in the words of ps's AWAITS column. */
    public static final String AWAITS = "awaits";
    /** pstree's wait-for graph: its tasks, its edges ({@link #FROM}, {@link #TO}, {@link #RELATION}), its cycles. */
    public static final String NODES = "nodes";
    public static final String EDGES = "edges";
    public static final String FROM = "from";
    public static final String TO = "to";
    /** What an edge's wait is ({@link AwaitKinds}): {@code task}, {@code gather}, {@code group}, {@code lock}... */
    public static final String RELATION = "relation";
    /** The cycles of a wait-for graph: each the ids of its tasks in the order they wait on each other. */
    public static final String CYCLES = "cycles";

    // ---- hang (loopdiag-hang/1) --------------------------------------------------------------------
    /** The time between two of the dumps compared. */
    public static final String INTERVAL_MILLIS = "intervalMillis";
    /** True when a loop or a task is stuck: the exit code 1. */
    public static final String STUCK = "stuck";
    /** {@code stuck}, {@code idle} or {@code moving}. */
    public static final String VERDICT = "verdict";
    /** Why, in words: what a loop is held in, or where a task's chain ends. */
    public static final String REASON = "reason";
    /** What a task waits on, step by step: each an {@link #ID}, a {@link #NAME} and the {@link #RELATION} that led there. */
    public static final String CHAIN = "chain";

    // ---- the list (loopdiag-list/1) ----------------------------------------------------------------
    public static final String JVMS = "jvms";
    /** A JVM's main class or jar, as the attach mechanism names it. */
    public static final String MAIN = "main";
    /** The agent's version in a JVM that runs it; absent otherwise. */
    public static final String AGENT = "agent";
    /** A list row's loops counted by kind ({@link LoopKinds}): {@code {"loop-core": 1, "netty": 4}}. */
    public static final String LOOPS_BY_KIND = "loopsByKind";
    /** Why a JVM could not say more. */
    public static final String NOTE = "note";

    // ---- the baseline (loopdiag-baseline/1) --------------------------------------------------------
    public static final String FINGERPRINT = "fingerprint";
    /** A finding's application frame. */
    public static final String WHERE = "where";

    private Fields() {
    }
}
