package io.loopdiag.bench.network;

import java.io.PrintStream;
import java.util.Arrays;

/**
 * {@code java -jar bench-network.jar COMMAND [options]}. Exit codes: 0 ok, 1 the measurement or
 * the server failed, 2 usage (unknown command or option, bad value).
 */
public final class Main {
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;

    private static final String USAGE = """
            usage: java -jar bench-network.jar COMMAND [options]
              netty-echo  [--port N] [--workers W] [--blockhound off|log|throw]
                                       Netty TCP echo server on 127.0.0.1 (NIO, 1 boss, W workers: default a core each)
              netty-http  [--port N] [--workers W] [--blockhound off|log|throw]
                                       Netty HTTP/1.1 hello on 127.0.0.1 (HttpServerCodec), keep-alive
              echo-load   --port P [--connections 100] [--size 64] [--seconds 10] [--warmup 3] [--rate R]
                          [--subject S] [--variant V] [--server-pid PID] [--server-stderr FILE]
                          [--detector loopdiag|blockhound] [--context TEXT]
                                       closed-loop echo load (--rate: paced at R msg/s in all); JSON lines: msg/s, p50 and p99 in us
              soak        --apps TEST_APPS_JAR --agent AGENT_JAR [--minutes 10] [--out FILE] [--rate 2000]
                          [--connections 50] [--sample-seconds 10] [--slow-ms 250]
                                       test-apps soak-server with the agent under paced echo load and injected
                                       detections; checks heap and findings; Markdown summary (bench/soak/run)
              wrk-report  --input FILE [--connections 100] [--threads 2] [--seconds 10]
                          [--subject S] [--variant V] [--server-cpu-seconds X] [--client-cpu-seconds X]
                          [--machine-cpu-seconds X]
                          [--server-stderr FILE] [--detector loopdiag|blockhound] [--context TEXT]
                                       wrk --latency output as JSON lines: req/s, p50 and p99 in us
              corpus      [--tool loopdiag|blockhound|none]
                                       each call of the blocking corpus in a task on a Netty event loop, with markers
                                       on stderr (blockhound: installs it, throwing; loopdiag: start the JVM with the agent)
              start       [--tool blockhound|none]
                                       starts and exits (blockhound: installs it first): the start that
                                       bench/agent-start times with each detector
              corpus-compare --agent AGENT_JAR [--java JAVA]
                                       corpus under the agent and under BlockHound, one JVM each; JSON lines: which caught
                                       each call; a table on stderr
              merge                    JSON lines of several rounds on stdin: one line per measurement,
                                       every round's value in samples, their median in median
            --blockhound: install BlockHound (log: print each blocking call and let it run; throw: its default);
              the JVM needs -XX:+AllowRedefinitionToAddDeleteMethods -Djdk.attach.allowAttachSelf=true;
            --server-stderr: count the detection lines of the --detector there (params.detections; default
              loopdiag, the agent's; blockhound: --blockhound log's);
            --context: appended to each line's note.
            """;

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.print(USAGE);
            return EXIT_USAGE;
        }
        String command = args[0];
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            return switch (command) {
                case "netty-echo" -> NettyEchoServer.run(Options.parse(command, rest, NettyServer.OPTIONS), out, err);
                case "netty-http" -> NettyHttpServer.run(Options.parse(command, rest, NettyServer.OPTIONS), out, err);
                case "echo-load" -> EchoLoad.run(Options.parse(command, rest, EchoLoad.OPTIONS), out, err);
                case "soak" -> Soak.run(Options.parse(command, rest, Soak.OPTIONS), out, err);
                case "wrk-report" -> WrkReport.run(Options.parse(command, rest, WrkReport.OPTIONS), out);
                case "corpus" -> BlockingCorpus.run(Options.parse(command, rest, "tool"), out, err);
                case "start" -> Start.run(Options.parse(command, rest, "tool"), out, err);
                case "corpus-compare" -> CorpusCompare.run(Options.parse(command, rest, CorpusCompare.OPTIONS), out, err);
                case "merge" -> {
                    Options.parse(command, rest); // takes none
                    yield Merge.run(System.in, out);
                }
                case "-h", "--help", "help" -> {
                    out.print(USAGE);
                    yield EXIT_OK;
                }
                default -> {
                    err.println("bench-network: unknown command '" + command + "'");
                    err.print(USAGE);
                    yield EXIT_USAGE;
                }
            };
        } catch (IllegalArgumentException e) {
            err.println("bench-network " + command + ": " + e.getMessage());
            return EXIT_USAGE;
        } catch (Exception e) {
            err.println("bench-network " + command + " failed: " + e);
            e.printStackTrace(err);
            return EXIT_FAILED;
        }
    }
}
