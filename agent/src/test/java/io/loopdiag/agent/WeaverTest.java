package io.loopdiag.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import net.bytebuddy.asm.Advice;
import org.junit.jupiter.api.Test;

/**
 * The weaver checks every hook against the methods of the class it weaves: a hook that matches
 * none is said by the self-check, by its name, and the others are woven all the same. Then the
 * real tables: every loop-core hook matches this loop-core, every blocking row this JDK.
 */
class WeaverTest {

    /** The class the hooks below are for. */
    public static final class Sample {
        public int run() {
            return 42;
        }
    }

    /** What the advice counts; public, as advice inlined into another class must reach it. */
    public static final class Entered {
        public static final AtomicInteger COUNT = new AtomicInteger();

        @Advice.OnMethodEnter
        static void enter() {
            Entered.COUNT.incrementAndGet();
        }
    }

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final SelfCheck selfCheck = new SelfCheck(new PrintStream(err, true, StandardCharsets.UTF_8));

    @Test
    void aHookThatMatchesNoMethodIsSaidByNameAndTheOthersAreWoven() throws Exception {
        Hook run = new Hook(Sample.class.getName(), "Sample#run", named("run"), Advice.to(Entered.class), "runs are not counted");
        Hook renamed = new Hook(Sample.class.getName(), "Sample#start", named("start"), Advice.to(Entered.class),
                "starts are not counted");
        Weaver weaver = new Weaver(List.of(run, renamed), selfCheck::unmatched);

        byte[] woven = weave(weaver, Sample.class);

        assertEquals(Weaver.Status.MATCHED, weaver.status(run));
        assertEquals(Weaver.Status.UNMATCHED, weaver.status(renamed));
        assertEquals(List.of("Sample#start matches no method of " + Sample.class.getName() + " here; starts are not counted"),
                selfCheck.problems());
        assertEquals("loopdiag: self-check: Sample#start matches no method of " + Sample.class.getName()
                + " here; starts are not counted\n", err.toString(StandardCharsets.UTF_8), "one line, on stderr");
        assertNotNull(woven, "the hook that matched was woven");
        int before = Entered.COUNT.get();
        Object sample = define(Sample.class.getName(), woven).getConstructor().newInstance();
        assertEquals(42, sample.getClass().getMethod("run").invoke(sample));
        assertEquals(before + 1, Entered.COUNT.get(), "the woven method ran its advice");
    }

    @Test
    void aClassWhoseHooksAllMatchNothingIsLeftAsItWasAndEachIsSaid() throws Exception {
        Hook a = new Hook(Sample.class.getName(), "Sample#stop", named("stop"), Advice.to(Entered.class), "a");
        Hook b = new Hook(Sample.class.getName(), "Sample#close", named("close"), Advice.to(Entered.class), "b");
        Weaver weaver = new Weaver(List.of(a, b), selfCheck::unmatched);

        assertNull(weave(weaver, Sample.class), "nothing to weave: the class's own bytes stand");
        assertEquals(2, selfCheck.problems().size(), selfCheck.problems().toString());
        weave(weaver, Sample.class);
        assertEquals(2, selfCheck.problems().size(), "a class woven again says nothing new");
    }

    @Test
    void aHookForOneClassLoaderLeavesTheSameNameInAnotherAlone() throws Exception {
        ClassLoader other = new ClassLoader(null) { };
        Hook run = new Hook(Sample.class.getName(), "Sample#run", named("run"), Advice.to(Entered.class), "a", other);
        Weaver weaver = new Weaver(List.of(run), selfCheck::unmatched);
        assertNull(weave(weaver, Sample.class), "this loader's Sample is not the hook's");
        assertEquals(Weaver.Status.NOT_LOADED, weaver.status(run));
    }

    @Test
    void everyLoopCoreHookMatchesThisLoopCore() throws Exception {
        List<Hook> hooks = LoopHooks.hooks(true);
        List<Hook> unmatched = new ArrayList<>();
        Weaver weaver = new Weaver(hooks, unmatched::add);
        for (String className : weaver.classNames(Hook.Check.ALWAYS)) {
            weave(weaver, Class.forName(className));
        }
        assertEquals(List.of(), unmatched.stream().map(Hook::label).toList());
        for (Hook hook : hooks) {
            assertEquals(Weaver.Status.MATCHED, weaver.status(hook), hook.label());
        }
    }

    @Test
    void everyBlockingRowMatchesThisJdk() throws Exception {
        List<Hook> unmatched = new ArrayList<>();
        Weaver weaver = new Weaver(BlockingHooks.HOOKS, unmatched::add);
        for (String className : weaver.classNames(Hook.Check.ALWAYS)) {
            weave(weaver, Class.forName(className, false, null));
        }
        assertEquals(List.of(), unmatched.stream().map(Hook::label).toList(), "rows missing from Java " + Runtime.version());
        assertEquals(Map.of(), weaver.failed);
    }

    @Test
    void aNettyWithoutTheTaskMethodGetsOneLineAndTheOtherLinesIoHooksSayNothing() throws Exception {
        List<Hook> hooks = NettyLoops.hooks();
        Weaver weaver = new Weaver(hooks, selfCheck::unmatched);
        // A Netty of another line: its executor runs tasks some other way, its loop has no processSelectedKeys.
        for (String name : List.of(NettyLoops.TASK_CLASS, "io.netty.channel.nio.NioEventLoop")) {
            byte[] bytes = new net.bytebuddy.ByteBuddy().subclass(Object.class).name(name)
                    .defineMethod("runTasks", void.class, java.lang.reflect.Modifier.PUBLIC).intercept(net.bytebuddy.implementation.StubMethod.INSTANCE)
                    .make().getBytes();
            assertNull(weaver.transform(null, WeaverTest.class.getClassLoader(), name.replace('.', '/'), null, null, bytes));
        }
        assertEquals(List.of(NettyLoops.TASK_CLASS + "#safeExecute(Runnable) matches no method of " + NettyLoops.TASK_CLASS
                + " here; Netty's tasks are neither timed nor checked for blocking calls"), selfCheck.problems());
    }

    /** What the weaver makes of {@code type}'s class file, as the JVM would hand it over at load time. */
    private static byte[] weave(Weaver weaver, Class<?> type) throws IOException {
        String internalName = type.getName().replace('.', '/');
        byte[] bytes;
        try (InputStream in = ClassLoader.getSystemResourceAsStream(internalName + ".class")) {
            bytes = in.readAllBytes();
        }
        return weaver.transform(type.getModule(), type.getClassLoader(), internalName, null, null, bytes);
    }

    /** {@code bytes} defined as {@code name} in a loader of their own, the rest from this test's loader. */
    private static Class<?> define(String name, byte[] bytes) {
        return new ClassLoader(WeaverTest.class.getClassLoader()) {
            Class<?> defineIt() {
                return defineClass(name, bytes, 0, bytes.length);
            }
        }.defineIt();
    }
}
