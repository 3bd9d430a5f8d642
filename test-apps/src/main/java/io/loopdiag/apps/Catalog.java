package io.loopdiag.apps;

/**
 * The scenarios of test-apps.jar, in the order {@code java -jar test-apps.jar} lists them: those
 * on loop-core, then those on foreign loops (Netty, Vert.x, Reactor, Swing). test-apps-netty41 has
 * a Catalog of its own, of the Netty scenarios alone.
 */
final class Catalog {
    private Catalog() {
    }

    /** Adds each scenario to {@link Main}'s list; Main calls it once, as it is initialised. */
    static void addAll() {
        Main.add(EchoServer.NAME, EchoServer.DESCRIPTION, EchoServer::main);
        Main.add(HttpServer.NAME, HttpServer.DESCRIPTION, HttpServer::main);
        Main.add(Healthy.NAME, Healthy.DESCRIPTION, Healthy::main);
        Main.add(SlowCallback.NAME, SlowCallback.DESCRIPTION, SlowCallback::main);
        Main.add(LoopStall.NAME, LoopStall.DESCRIPTION, LoopStall::main);
        Main.add(HalfBusy.NAME, HalfBusy.DESCRIPTION, HalfBusy::main);
        Main.add(TwinLoops.NAME, TwinLoops.DESCRIPTION, TwinLoops::main);
        Main.add(BlockingSleep.NAME, BlockingSleep.DESCRIPTION, BlockingSleep::main);
        Main.add(BlockingWait.NAME, BlockingWait.DESCRIPTION, BlockingWait::main);
        Main.add(BlockingPark.NAME, BlockingPark.DESCRIPTION, BlockingPark::main);
        Main.add(BlockingFuture.NAME, BlockingFuture.DESCRIPTION, BlockingFuture::main);
        Main.add(BlockingQueues.NAME, BlockingQueues.DESCRIPTION, BlockingQueues::main);
        Main.add(BlockingLock.NAME, BlockingLock.DESCRIPTION, BlockingLock::main);
        Main.add(BlockingSocket.NAME, BlockingSocket.DESCRIPTION, BlockingSocket::main);
        Main.add(BlockingFile.NAME, BlockingFile.DESCRIPTION, BlockingFile::main);
        Main.add(BlockingProcess.NAME, BlockingProcess.DESCRIPTION, BlockingProcess::main);
        Main.add(BlockingDns.NAME, BlockingDns.DESCRIPTION, BlockingDns::main);
        Main.add(BlockingMonitor.NAME, BlockingMonitor.DESCRIPTION, BlockingMonitor::main);
        Main.add(BlockingPinned.NAME, BlockingPinned.DESCRIPTION, BlockingPinned::main);
        Main.add(BlockingStorm.NAME, BlockingStorm.DESCRIPTION, BlockingStorm::main);
        Main.add(BlockingOnCue.NAME, BlockingOnCue.DESCRIPTION, BlockingOnCue::main);
        Main.add(NeverAwaited.NAME, NeverAwaited.DESCRIPTION, NeverAwaited::main);
        Main.add(LostException.NAME, LostException.DESCRIPTION, LostException::main);
        Main.add(HostileNames.NAME, HostileNames.DESCRIPTION, HostileNames::main);
        Main.add(StuckService.NAME, StuckService.DESCRIPTION, StuckService::main);
        Main.add(AwaitDeadlock.NAME, AwaitDeadlock.DESCRIPTION, AwaitDeadlock::main);
        Main.add(WaitGraph.NAME, WaitGraph.DESCRIPTION, WaitGraph::main);
        Main.add(NoLoop.NAME, NoLoop.DESCRIPTION, NoLoop::main);
        Main.add(ManyTasks.NAME, ManyTasks.DESCRIPTION, ManyTasks::main);
        Main.add(SoakServer.NAME, SoakServer.DESCRIPTION, SoakServer::main);
        Main.add(ClosingLoops.NAME, ClosingLoops.DESCRIPTION, ClosingLoops::main);
        Main.add(NettyStuck.NAME, NettyStuck.DESCRIPTION, NettyStuck::main);
        Main.add(NettySlowHandler.NAME, NettySlowHandler.DESCRIPTION, NettySlowHandler::main);
        Main.add(NettyLostWrite.NAME, NettyLostWrite.DESCRIPTION, NettyLostWrite::main);
        Main.add(NettyHealthy.NAME, NettyHealthy.DESCRIPTION, NettyHealthy::main);
        Main.add(VertxBlocking.NAME, VertxBlocking.DESCRIPTION, VertxBlocking::main);
        Main.add(ReactorBlocking.NAME, ReactorBlocking.DESCRIPTION, ReactorBlocking::main);
        Main.add(SwingEdtFreeze.NAME, SwingEdtFreeze.DESCRIPTION, SwingEdtFreeze::main);
    }
}
