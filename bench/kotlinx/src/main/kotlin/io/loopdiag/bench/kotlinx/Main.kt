@file:JvmName("MainKt")

package io.loopdiag.bench.kotlinx

import java.lang.management.ManagementFactory
import java.nio.file.Files
import java.nio.file.Path
import java.util.Locale
import kotlin.system.exitProcess

/**
 * Runs the workloads of [KotlinxWorkloads] and prints one JSON object a line (JSON Lines) to stdout,
 * in the benchmarks' shared format: `task-switch`, `create-await`, `callback-chain`, `timers`, then
 * two `suspended-memory` lines (`heap`, `rss`).
 *
 * Like JMH's forks, workloads run in JVMs of their own (this JVM's java, options and class path),
 * so that one workload's JIT profile does not slow the next (run in one JVM after the others, the
 * callback chain took twice as long here). Each of the [MEASURED_RUNS] samples of a timed workload
 * is one whole workload run in a fresh JVM after at least [WARMUP_MIN_RUNS] warm-up runs and
 * [WARMUP_MIN_NANOS] there: from one JVM to the next the warm figures differ by up to 2x here (JIT
 * and GC sizing), which samples from a single JVM would hide. The memory figures also need a fresh
 * JVM for every sample (see [memorySample]): [WARMUP_MIN_RUNS] JVMs are discarded, then
 * [MEASURED_RUNS] measured.
 *
 * `--smoke`: sizes divided by 1000, one sample each, no warm-up (checks that all runs; the figures
 * mean nothing). Arguments naming workloads run only those.
 */
fun main(args: Array<String>) {
    if (args.firstOrNull() == CHILD) return child(args.drop(1))
    val smoke = "--smoke" in args
    val names = args.filter { it != "--smoke" }
    val unknown = names - ALL_WORKLOADS.toSet()
    if (unknown.isNotEmpty() || names.any { it.startsWith("-") }) {
        System.err.println("usage: io.loopdiag.bench.kotlinx.MainKt [--smoke] [${ALL_WORKLOADS.joinToString("|")}...]")
        exitProcess(2)
    }
    val flags = if (smoke) listOf("--smoke") else emptyList()
    for (name in names.ifEmpty { ALL_WORKLOADS }) {
        if (name == SUSPENDED_MEMORY) {
            suspendedMemory(smoke, flags)
        } else {
            timed(name, smoke, flags)
        }
        System.out.flush()
    }
}

const val WARMUP_MIN_RUNS = 5
const val WARMUP_MIN_NANOS = 2_000_000_000L
const val MEASURED_RUNS = 5

private const val CHILD = "--child"
private const val MEMORY_SAMPLE = "memory-sample"
private const val SUSPENDED_MEMORY = "suspended-memory"
private val ALL_WORKLOADS = listOf("task-switch", "create-await", "callback-chain", "timers", SUSPENDED_MEMORY)

/** Full sizes, the benchmarks' shared ones; `--smoke` divides the work by [SMOKE_DIVISOR]. */
private const val TASKS = 100
private const val SWITCHES = 10_000
private const val CREATE_AWAIT_N = 200_000
private const val CALLBACK_CHAIN_N = 1_000_000
private const val TIMERS_N = 100_000
private const val TIMERS_SEED = 42L
private const val SUSPENDED_N = 100_000
private const val SMOKE_DIVISOR = 1000

private const val LOOP_NOTE = "runBlocking's event loop on the calling thread (single-thread dispatcher)"

/** Runs this program in a new JVM with this JVM's java, options and class path; returns its stdout. */
private fun fork(args: List<String>): String {
    val java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString())
    val command = listOf(java) + ManagementFactory.getRuntimeMXBean().inputArguments +
        listOf("-cp", System.getProperty("java.class.path"), "io.loopdiag.bench.kotlinx.MainKt", CHILD) + args
    val process = ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start()
    process.outputStream.close()
    val out = process.inputStream.bufferedReader().readText()
    val status = process.waitFor()
    check(status == 0) { "the JVM running ${args.joinToString(" ")} exited with $status" }
    return out
}

private fun child(args: List<String>) {
    val smoke = "--smoke" in args
    val divisor = if (smoke) SMOKE_DIVISOR else 1
    when (val name = args.first()) {
        MEMORY_SAMPLE -> memorySample(maxOf(1, SUSPENDED_N / divisor))
        else -> {
            // Prints the number of warm-up runs, then the measured sample (ns/op).
            val workload = timedWorkloads(divisor).single { it.name == name }
            if (!smoke) workload.warmUp()
            println("${workload.warmups} ${workload.sampleNsPerOp()}")
        }
    }
}

/** One JSON line for a timed workload: each sample from a JVM of its own, after its warm-up. */
private fun timed(name: String, smoke: Boolean, flags: List<String>) {
    val workload = timedWorkloads(if (smoke) SMOKE_DIVISOR else 1).single { it.name == name }
    val warmups = ArrayList<Int>()
    val samples = List(if (smoke) 1 else MEASURED_RUNS) {
        val (warm, sample) = fork(listOf(name) + flags).trim().split(' ')
        warmups += warm.toInt()
        sample.toDouble()
    }
    val how = if (smoke) SMOKE_NOTE else "$MEASURED_RUNS samples, each one whole workload in a fresh JVM after " +
        ">= $WARMUP_MIN_RUNS warm-up runs and >= ${WARMUP_MIN_NANOS / 1_000_000_000} s there " +
        "(${warmups.min()} to ${warmups.max()} runs)"
    println(jsonLine(workload.name, "ns/op", samples, workload.params, "${workload.note}; $how"))
}

private const val SMOKE_NOTE = "SMOKE: work / $SMOKE_DIVISOR, 1 run, no warm-up: not a measurement"

@Volatile
private var sink = 0L

private class TimedWorkload(
    val name: String,
    val params: Map<String, Any>,
    val ops: Long,
    val note: String,
    val body: () -> Long,
    val check: (Long) -> Boolean,
) {
    var warmups = 0

    fun sampleNsPerOp(): Double {
        val start = System.nanoTime()
        val checksum = body()
        val elapsed = System.nanoTime() - start
        check(check(checksum)) { "$name: unexpected checksum $checksum" }
        sink += checksum
        return elapsed.toDouble() / ops
    }

    fun warmUp() {
        val start = System.nanoTime()
        while (warmups < WARMUP_MIN_RUNS || System.nanoTime() - start < WARMUP_MIN_NANOS) {
            sampleNsPerOp()
            warmups++
        }
    }
}

private fun timedWorkloads(divisor: Int): List<TimedWorkload> {
    // Smoke: the number of tasks is kept, the switches per task divided.
    val switches = maxOf(1, SWITCHES / divisor)
    val createAwait = maxOf(1, CREATE_AWAIT_N / divisor)
    val chain = maxOf(1, CALLBACK_CHAIN_N / divisor)
    val timers = maxOf(1, TIMERS_N / divisor)
    return listOf(
        TimedWorkload(
            "task-switch", linkedMapOf("tasks" to TASKS, "switches" to switches), TASKS.toLong() * switches,
            "$LOOP_NOTE; ns per yield(): $TASKS coroutines launched together, each yield() $switches times",
            { KotlinxWorkloads.taskSwitch(TASKS, switches) }, { it == TASKS.toLong() * switches },
        ),
        TimedWorkload(
            "create-await", linkedMapOf("n" to createAwait), createAwait.toLong(),
            "$LOOP_NOTE; ns per async { 1 }.await() in one coroutine",
            { KotlinxWorkloads.createAwait(createAwait) }, { it == createAwait.toLong() },
        ),
        TimedWorkload(
            "callback-chain", linkedMapOf("n" to chain), chain.toLong(),
            "$LOOP_NOTE; ns per callback: one Runnable re-dispatching itself with " +
                "CoroutineDispatcher.dispatch from its run(), no coroutine per step",
            { KotlinxWorkloads.callbackChain(chain) }, { it == chain.toLong() },
        ),
        TimedWorkload(
            "timers", linkedMapOf("n" to timers, "max_delay_ms" to 10, "seed" to TIMERS_SEED), timers.toLong(),
            "$LOOP_NOTE; ns per timer, from the first scheduled to the last fired: $timers coroutines " +
                "each delay(d), d uniform in [0, 10 ms); delay has millisecond resolution (d rounded up: 1 to 10 ms)",
            { KotlinxWorkloads.timers(timers, TIMERS_SEED) }, { it > 0 },
        ),
    )
}

/**
 * The two suspended-memory lines: every sample is a fresh JVM running [memorySample]. In one JVM
 * only the first sample grows the RSS: the heap pages touched then stay resident and are reused by
 * the next samples, whose RSS growth is then about 0 (measured here: 27, 27, 0, 0, 0 MB).
 */
private fun suspendedMemory(smoke: Boolean, flags: List<String>) {
    val n = maxOf(1, SUSPENDED_N / (if (smoke) SMOKE_DIVISOR else 1))
    val warmups = if (smoke) 0 else WARMUP_MIN_RUNS
    val measured = if (smoke) 1 else MEASURED_RUNS
    val heap = ArrayList<Double>()
    val rss = ArrayList<Double>()
    for (run in 0 until warmups + measured) {
        val (heapGrowth, rssGrowth) = fork(listOf(MEMORY_SAMPLE) + flags).trim().split(' ').map { it.toDouble() }
        if (run >= warmups) {
            heap += heapGrowth / MB
            rss += rssGrowth / MB
        }
    }
    val params = linkedMapOf<String, Any>("n" to n)
    val how = if (smoke) SMOKE_NOTE else "$warmups JVMs discarded, then $measured measured, a fresh JVM each"
    val what = "$n coroutines each awaiting its own never-completed CompletableDeferred on a " +
        "single-thread executor dispatcher; growth from before they start to while they are suspended, " +
        "both after System.gc(); MB = 10^6 bytes"
    println(jsonLine(SUSPENDED_MEMORY, "MB", heap, params + ("measure" to "heap"), "$what; used heap (MemoryMXBean); $how"))
    println(jsonLine(SUSPENDED_MEMORY, "MB", rss, params + ("measure" to "rss"), "$what; resident set from /proc/self/statm (4 KiB pages); $how"))
}

/**
 * In a fresh JVM: loads the classes with 1,000 suspended coroutines (started and closed), then
 * prints the growth of the used heap and of the RSS, in bytes, caused by [n] suspended coroutines.
 */
private fun memorySample(n: Int) {
    KotlinxWorkloads.suspendedTasks(1000).close()
    collect()
    val heapBefore = usedHeap()
    val rssBefore = rssBytes()
    KotlinxWorkloads.suspendedTasks(n).use { handle ->
        check(handle.count == n) { "$SUSPENDED_MEMORY: ${handle.count} of $n started" }
        collect()
        println("${usedHeap() - heapBefore} ${rssBytes() - rssBefore}")
    }
}

private const val MB = 1e6
private const val PAGE_SIZE = 4096L

private fun collect() {
    repeat(2) { System.gc() }
}

private fun usedHeap(): Long = ManagementFactory.getMemoryMXBean().heapMemoryUsage.used

/** Resident set size: the second field of /proc/self/statm, in pages of [PAGE_SIZE] bytes (x86-64). */
private fun rssBytes(): Long =
    Files.readString(Path.of("/proc/self/statm")).trim().split(' ')[1].toLong() * PAGE_SIZE

private fun jsonLine(
    workload: String, metric: String, samples: List<Double>, params: Map<String, Any>, note: String,
): String {
    val sorted = samples.sorted()
    val median = if (sorted.size % 2 == 1) sorted[sorted.size / 2]
    else (sorted[sorted.size / 2 - 1] + sorted[sorted.size / 2]) / 2
    val error = (sorted.last() - sorted.first()) / 2
    val paramsJson = params.entries.joinToString(",", "{", "}") { (k, v) ->
        "${quote(k)}:${if (v is Number) v.toString() else quote(v.toString())}"
    }
    return buildString {
        append("{\"workload\":").append(quote(workload))
        append(",\"subject\":\"kotlinx\",\"variant\":\"default\"")
        append(",\"metric\":").append(quote(metric))
        append(",\"median\":").append(num(median))
        append(",\"error\":").append(num(error))
        append(",\"samples\":").append(samples.joinToString(",", "[", "]") { num(it) })
        append(",\"params\":").append(paramsJson)
        append(",\"note\":").append(quote(note))
        append('}')
    }
}

private fun num(x: Double): String = String.format(Locale.ROOT, "%.3f", x)

private fun quote(s: String): String = buildString {
    append('"')
    for (c in s) when {
        c == '"' -> append("\\\"")
        c == '\\' -> append("\\\\")
        c < ' ' -> append(String.format(Locale.ROOT, "\\u%04x", c.code))
        else -> append(c)
    }
    append('"')
}
