package io.loopdiag.apps;

/**
 * The scenarios of test-apps-netty41.jar: test-apps' Netty scenarios, compiled from the same
 * sources against Netty 4.1 (the rest of test-apps needs loop-core or Netty 4.2). It stands for
 * test-apps' own Catalog, which Main, shared by both jars, calls.
 */
final class Catalog {
    private Catalog() {
    }

    /** Adds each scenario to {@link Main}'s list; Main calls it once, as it is initialised. */
    static void addAll() {
        Main.add(NettyStuck.NAME, NettyStuck.DESCRIPTION, NettyStuck::main);
        Main.add(NettySlowHandler.NAME, NettySlowHandler.DESCRIPTION, NettySlowHandler::main);
        Main.add(NettyLostWrite.NAME, NettyLostWrite.DESCRIPTION, NettyLostWrite::main);
        Main.add(NettyHealthy.NAME, NettyHealthy.DESCRIPTION, NettyHealthy::main);
    }
}
