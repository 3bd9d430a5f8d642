package io.loopdiag.apps;

import static io.loopdiag.loop.Async.await;
import static io.loopdiag.loop.Async.sleep;

import io.loopdiag.loop.Async;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.net.Server;
import io.loopdiag.loop.net.Streams;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code soak-server [--port N] [--inject-seconds S] [--every-ms MS] [--slow-every N] [--slow-ms MS]}:
 * {@link EchoServer}'s echo, plus a task named {@code injector} that, for {@code S} seconds, makes
 * one blocking call on the loop every {@code MS} milliseconds, in turn from each of
 * {@link #BLOCKING_SITES} call sites of its own; every {@code N}th time it sleeps {@code --slow-ms}
 * in {@code slowSite} instead, a slow callback. Then it prints what it did, one line per finding
 * the agent should hold, {@code soak-server injected KIND CLASS.METHOD COUNT}, and
 * {@code soak-server injector done}; the echo serves on until the process is killed. For
 * bench/soak: the agent's findings must be exactly these, with these counts.
 */
final class SoakServer {
    static final String NAME = "soak-server";
    static final String DESCRIPTION = "echo-server plus a task that blocks the loop every second from fixed call sites (for bench/soak)";
    private static final String HOST = "127.0.0.1";
    private static final String SITE_PREFIX = SoakServer.class.getName() + ".";
    /** The methods that block, one call each per round: {@code sleepSite} to {@code futureSite}. */
    static final int BLOCKING_SITES = 5;
    private static final Object MONITOR = new Object();

    private SoakServer() {
    }

    static int main(String[] args) throws Exception {
        Map<String, Integer> options = new LinkedHashMap<>(Map.of(
                "--port", 0, "--inject-seconds", 60, "--every-ms", 1000, "--slow-every", 10, "--slow-ms", 300));
        for (int i = 0; i < args.length; i += 2) {
            if (args[i].equals("--port")) {
                options.put("--port", Main.parsePort(args, i));
            } else if (!options.containsKey(args[i]) || i + 1 >= args.length) {
                throw new IllegalArgumentException("unknown argument '" + args[i] + "' (usage: " + NAME
                        + " [--port N] [--inject-seconds S] [--every-ms MS] [--slow-every N] [--slow-ms MS])");
            } else {
                try {
                    options.put(args[i], Integer.parseInt(args[i + 1]));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(args[i] + " needs a number, got '" + args[i + 1] + "'");
                }
            }
        }
        int port = options.get("--port");
        if (options.get("--every-ms") < 1 || options.get("--slow-every") < 1) {
            throw new IllegalArgumentException("--every-ms and --slow-every must be at least 1");
        }
        EventLoop.run(() -> {
            Server server = Streams.startServer(EchoServer::echo, HOST, port);
            System.out.println(NAME + " listening on " + HOST + ":" + server.port());
            System.out.flush();
            Async.createTask("injector", () -> inject(options.get("--inject-seconds"), options.get("--every-ms"),
                    options.get("--slow-every"), options.get("--slow-ms")));
            await(Async.loop().createFuture()); // serve until the process is killed
            return null;
        });
        return Main.EXIT_OK;
    }

    /** The injector task: blocks the loop at a steady rate, counting each call by site, then prints the counts. */
    private static Void inject(int seconds, int everyMillis, int slowEvery, int slowMillis) throws Exception {
        Map<String, Long> sites = new LinkedHashMap<>();
        long rounds = (long) seconds * 1000 / everyMillis;
        for (long n = 1; n <= rounds; n++) {
            sleep(Duration.ofMillis(everyMillis));
            String site = n % slowEvery == 0 ? slowSite(slowMillis) : blockAt((int) (n % BLOCKING_SITES));
            sites.merge(site, 1L, Long::sum);
        }
        sites.forEach((site, count) -> {
            if (site.endsWith(".slowSite")) {
                // One slow callback that blocks: a blocking call, the stall while it runs, a slow callback once it ends.
                for (String kind : new String[] {"blocking-call", "loop-stall", "slow-callback"}) {
                    System.out.println(NAME + " injected " + kind + " " + site + " " + count);
                }
            } else {
                System.out.println(NAME + " injected blocking-call " + site + " " + count);
            }
        });
        System.out.println(NAME + " injector done");
        System.out.flush();
        return null;
    }

    private static String blockAt(int site) throws Exception {
        return switch (site) {
            case 0 -> sleepSite();
            case 1 -> parkSite();
            case 2 -> waitSite();
            case 3 -> timeUnitSite();
            default -> futureSite();
        };
    }

    private static String sleepSite() throws InterruptedException {
        Thread.sleep(1);
        return SITE_PREFIX + "sleepSite";
    }

    private static String parkSite() {
        LockSupport.parkNanos(1_000_000);
        return SITE_PREFIX + "parkSite";
    }

    private static String waitSite() throws InterruptedException {
        synchronized (MONITOR) {
            MONITOR.wait(1);
        }
        return SITE_PREFIX + "waitSite";
    }

    private static String timeUnitSite() throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(1);
        return SITE_PREFIX + "timeUnitSite";
    }

    private static String futureSite() throws Exception {
        try {
            new CompletableFuture<Void>().get(1, TimeUnit.MILLISECONDS);
        } catch (TimeoutException expected) {
            // nobody completes it: the wait is the point
        }
        return SITE_PREFIX + "futureSite";
    }

    private static String slowSite(int millis) throws InterruptedException {
        Thread.sleep(millis);
        return SITE_PREFIX + "slowSite";
    }
}
