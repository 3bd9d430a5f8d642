package io.loopdiag.agent;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.loopdiag.agent.boot.BlockingCheck;
import io.loopdiag.agent.boot.LoopThread;
import java.lang.reflect.Field;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import net.bytebuddy.asm.Advice;

/**
 * What a Vert.x event loop's unit of work is for, as its users name it: the Vert.x Web route
 * ({@code route GET /orders/:id}) or the event-bus address ({@code event-bus consumer of
 * 'orders.price'}) whose handler runs. Two hooks, matched by name in the application's class loader,
 * note on the loop thread which route or registration is dispatching ({@link LoopThread#handler});
 * the findings and the dump read it when they describe the unit. Without Vert.x Web, or with a
 * Vert.x that renamed these methods, a unit is named by its handler's class and method alone.
 */
final class VertxHandlers {
    static final String ROUTE = "io.vertx.ext.web.impl.RouteState";
    private static final String REGISTRATION = "io.vertx.core.eventbus.impl.HandlerRegistration";

    private VertxHandlers() {
    }

    static List<Hook> hooks() {
        return List.of(
                new Hook(ROUTE, ROUTE + "#handleContext(RoutingContextImplBase)", named("handleContext").and(takesArguments(1)),
                        Advice.to(Dispatch.class), "a Vert.x route's findings name its handler, not its path")
                        .checked(Hook.Check.IF_LOADED),
                new Hook(REGISTRATION, REGISTRATION + "#dispatch(Handler, Message, ContextInternal)",
                        named("dispatch").and(not(isAbstract())).and(takesArguments(3))
                                .and(takesArgument(0, named("io.vertx.core.Handler"))),
                        Advice.to(Dispatch.class), "an event-bus consumer's findings name its handler, not its address")
                        .checked(Hook.Check.IF_LOADED));
    }

    /**
     * {@code route GET /report}, {@code event-bus consumer of 'orders.price'}: what {@code handler}
     * (a {@link LoopThread#handler}) dispatches, or null when it is neither or cannot be read.
     */
    static String describe(Object handler) {
        if (handler == null) {
            return null;
        }
        if (handler.getClass().getName().equals(ROUTE)) {
            Object path = field(handler, ROUTE, "path");
            if (path == null) {
                path = field(handler, ROUTE, "pattern"); // a route by regular expression
            }
            StringBuilder text = new StringBuilder("route ");
            if (field(handler, ROUTE, "methods") instanceof Collection<?> methods && !methods.isEmpty()) {
                TreeSet<String> names = new TreeSet<>();
                methods.forEach(method -> names.add(String.valueOf(method)));
                text.append(String.join("|", names)).append(' ');
            }
            return text.append(path != null ? path : "of any path").toString();
        }
        Object address = field(handler, REGISTRATION, "address");
        return address != null ? "event-bus consumer of '" + address + "'" : null;
    }

    /** The class whose method dispatches to the handler of {@code handler}, as stack frames name it. */
    static String declaring(Object handler) {
        return handler.getClass().getName().equals(ROUTE) ? ROUTE : REGISTRATION;
    }

    /** Field {@code name} of {@code target}'s class or superclass named {@code declaring}, or null if it cannot be read. */
    private static Object field(Object target, String declaring, String name) {
        Class<?> type = ForeignLoops.superclassNamed(target.getClass(), declaring);
        if (type == null) {
            return null;
        }
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field.get(target);
        } catch (ReflectiveOperationException | RuntimeException unreadable) {
            return null; // Vert.x on the module path, or a version without that field
        }
    }

    // ---- advice: inlined into Vert.x' classes, in any class loader, so it calls only BlockingCheck ----

    /** Around a route's or a registration's dispatch to its handler: two ThreadLocal reads, two field writes. */
    static final class Dispatch {
        @Advice.OnMethodEnter
        static Object enter(@Advice.This Object handler) {
            return BlockingCheck.enterHandler(handler);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Object outer) {
            BlockingCheck.exitHandler(outer);
        }
    }
}
