package io.loopdiag.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.loopdiag.loop.EventLoop;
import io.loopdiag.loop.LoopClock;
import java.util.Map;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.implementation.FixedValue;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * LibrariesIT's application, run in a child JVM with its own Byte Buddy and Jackson on the class
 * path: prints the versions it sees (Byte Buddy's as the jar it was loaded from), uses both, then blocks in a task of a loop-core loop.
 */
public final class OwnLibrariesApp {
    private OwnLibrariesApp() {
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper json = new ObjectMapper();
        System.out.println("jackson " + json.version().toString());
        // Byte Buddy's manifest has no version: the jar it came from says which one this is.
        System.out.println("byte-buddy from " + java.nio.file.Path.of(ByteBuddy.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI()).getFileName());
        System.out.println(json.writeValueAsString(Map.of("serialised", "by the application")));
        Class<?> made = new ByteBuddy(ClassFileVersion.JAVA_V8).subclass(Object.class)
                .method(ElementMatchers.named("toString")).intercept(FixedValue.value("made by the application"))
                .make().load(OwnLibrariesApp.class.getClassLoader()).getLoaded();
        System.out.println(made.getDeclaredConstructor().newInstance());
        EventLoop loop = new EventLoop("own-libraries", LoopClock.SYSTEM);
        try {
            loop.runUntilComplete(loop.createTask("blocker", () -> {
                Thread.sleep(1);
                return null;
            }));
        } finally {
            loop.close();
        }
        System.out.println("own-libraries done");
    }
}
