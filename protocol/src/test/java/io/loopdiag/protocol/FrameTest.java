package io.loopdiag.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FrameTest {

    @Test
    void aFrameOfTheApplicationClassLoaderIsTakenApart() {
        Frame frame = Frame.parse("app//com.acme.Cart.total(Cart.java:42)");
        assertEquals("com.acme.Cart", frame.className());
        assertEquals("total", frame.method());
        assertEquals("Cart.java", frame.file());
        assertEquals(42, frame.line());
        assertNull(frame.module());
        assertEquals("com/acme/Cart.java", frame.sourcePath());
        assertEquals("com.acme.Cart.total(Cart.java)", frame.withoutLine());
        assertEquals("Cart.java:42 total", frame.shortForm());
        assertFalse(frame.isLibrary());
    }

    @Test
    void aModuleIsReadWithOrWithoutItsLoaderAndVersion() {
        assertEquals("java.base", Frame.parse("java.base/java.lang.Thread.sleep(Thread.java:536)").module());
        assertEquals("com.foo", Frame.parse("com.foo.loader/com.foo@9.0/com.foo.Main.run(Main.java:101)").module());
        assertEquals("com.foo.Main", Frame.parse("com.foo.loader/com.foo@9.0/com.foo.Main.run(Main.java:101)").className());
        assertEquals("com.foo", Frame.parse("com.foo@9.0/com.foo.Main.run(Main.java:101)").module());
        assertNull(Frame.parse("com.acme.Cart.total(Cart.java:42)").module());
    }

    @Test
    void theJdkIsKnownByItsModulesAndWithoutOneByItsPackages() {
        assertTrue(Frame.parse("java.base/java.lang.Thread.sleep(Thread.java:536)").isJdk());
        assertTrue(Frame.parse("java.base/jdk.internal.misc.Unsafe.park(Native Method)").isJdk());
        assertTrue(Frame.parse("java.base/sun.nio.ch.NioSocketImpl.read(NioSocketImpl.java:1)").isJdk());
        assertTrue(Frame.parse("jdk.httpclient/jdk.internal.net.http.Foo.bar(Foo.java:1)").isJdk());
        assertTrue(Frame.parse("java.lang.Thread.sleep(Thread.java:536)").isJdk(), "no module written: by package");
        assertFalse(Frame.parse("app//javafake.Thing.run(Thing.java:1)").isJdk());
        assertTrue(Frame.isJdk(new StackTraceElement(null, "java.base", null, "java.lang.Object", "wait", "Object.java", 1)));
        assertFalse(Frame.isJdk(new StackTraceElement("app", null, null, "com.acme.Cart", "total", "Cart.java", 1)));
    }

    @Test
    void loopCoreAndTheAgentAreLibraryFrames() {
        assertTrue(Frame.parse("app//io.loopdiag.loop.Async.await(Async.java:40)").isLibrary());
        assertTrue(Frame.parse("app//io.loopdiag.agent.BlockingCalls.blockingCall(BlockingCalls.java:9)").isLibrary());
        assertTrue(Frame.parse("app//io.loopdiag.shaded.jackson.core.JsonGenerator.flush(JsonGenerator.java:9)").isLibrary());
        assertFalse(Frame.parse("app//io.loopdiag.apps.StuckService.refreshCache(StuckService.java:57)").isLibrary());
    }

    @Test
    void theApplicationFrameIsTheInnermostThatIsNotALibrarys() {
        List<String> stack = List.of("java.base/java.lang.Thread.sleep(Thread.java:536)",
                "app//io.loopdiag.loop.Async.sleep(Async.java:3)", "app//com.acme.Cart.total(Cart.java:42)",
                "app//com.acme.Main.main(Main.java:7)");
        assertEquals("com.acme.Cart", Frame.application(stack).className());
        assertEquals("java.lang.Thread", Frame.application(List.of("java.base/java.lang.Thread.sleep(Thread.java:536)")).className(),
                "all library frames: the innermost");
        assertNull(Frame.application(List.of()));
    }

    @Test
    void onAForeignLoopTheApplicationFrameIsTheInnermostThatIsNotOfItsFramework() {
        List<String> sync = List.of("java.base/java.lang.Object.wait0(Native Method)",
                "app//io.netty.util.concurrent.DefaultPromise.await(DefaultPromise.java:254)",
                "app//io.netty.channel.DefaultChannelPromise.sync(DefaultChannelPromise.java:35)",
                "app//com.example.OrderHandler.channelRead(OrderHandler.java:42)",
                "app//io.netty.channel.AbstractChannelHandlerContext.invokeChannelRead(AbstractChannelHandlerContext.java:444)");
        assertEquals("com.example.OrderHandler", Frame.application(sync, LoopKinds.NETTY).className());
        assertEquals("com.example.OrderHandler", Frame.application(sync, LoopKinds.VERTX).className());
        assertEquals("io.netty.util.concurrent.DefaultPromise", Frame.application(sync).className(), "without the kind: Netty's");
        assertEquals("io.netty.util.concurrent.DefaultPromise", Frame.application(sync, LoopKinds.NAMED).className());
        assertEquals("io.netty.util.concurrent.DefaultPromise", Frame.application(sync, null).className(), "no kind: loop-core's rule");

        List<String> onlyNetty = sync.subList(0, 3);
        assertEquals("io.netty.util.concurrent.DefaultPromise", Frame.application(onlyNetty, LoopKinds.NETTY).className(),
                "nothing but the framework: the innermost frame that is not the JDK's");
        List<String> swing = List.of("java.desktop/javax.swing.AbstractButton.fireActionPerformed(AbstractButton.java:1972)",
                "javax.swing.DefaultButtonModel.setPressed(DefaultButtonModel.java:279)",
                "app//com.example.SaveAction.actionPerformed(SaveAction.java:30)");
        assertEquals("com.example.SaveAction", Frame.application(swing, LoopKinds.AWT).className());
        assertNull(Frame.application(List.of(), LoopKinds.NETTY));
    }

    @Test
    void textThatIsNotAFrameKeepsItsTextAsClass() {
        Frame frame = Frame.parse("not a frame");
        assertEquals("not a frame", frame.className());
        assertEquals(-1, frame.line());
        assertNull(frame.file());
        assertEquals(-1, Frame.parse("a.B.c(B.java:notanumber)").line());
        assertNull(Frame.parse("a.B.c(Native Method)").file());
    }
}
