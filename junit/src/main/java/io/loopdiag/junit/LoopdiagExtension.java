package io.loopdiag.junit;

import io.loopdiag.protocol.Feed;
import io.loopdiag.protocol.Kind;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.AnnotatedElement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;
import org.opentest4j.AssertionFailedError;

/**
 * The extension behind {@link LoopdiagCheck}; registered alone ({@code @ExtendWith}) it fails on
 * {@code blocking-call}. Before each test it marks the agent's occurrence feed, after it reads what
 * came since. Findings are matched to tests by time, so tests run in parallel share each other's.
 * The agent is reached through the system class loader, where {@code -javaagent} puts it.
 */
public final class LoopdiagExtension implements BeforeEachCallback, AfterEachCallback {
    private static final String MARK_KEY = "mark";
    /** Without the agent: what is missing, and the exact line a build needs, Maven's first. */
    static final String NOT_LOADED = "the loopdiag agent is not loaded in this JVM, so @LoopdiagCheck cannot see this test's loops:"
            + " start the test JVM with -javaagent:/path/to/loopdiag-agent.jar (Maven: Surefire's"
            + " <argLine>-javaagent:${io.loopdiag:loopdiag-agent:jar}</argLine>, the path set by maven-dependency-plugin's"
            + " properties goal; Gradle: test { jvmArgs \"-javaagent:/path/to/loopdiag-agent.jar\" })";
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LoopdiagExtension.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        long mark;
        try {
            mark = (long) AgentFeed.MARK.invokeExact();
        } catch (IllegalStateException notWatching) {
            throw new ExtensionConfigurationException("loopdiag: " + notWatching.getMessage());
        } catch (Throwable unexpected) {
            throw new ExtensionConfigurationException("loopdiag: cannot read the agent's findings (" + unexpected + ")");
        }
        context.getStore(NAMESPACE).put(MARK_KEY, mark);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void afterEach(ExtensionContext context) {
        Long mark = context.getStore(NAMESPACE).get(MARK_KEY, Long.class);
        if (mark == null) {
            return; // beforeEach failed (no agent), and its failure says why
        }
        Set<String> failOn = Set.of(failOn(context));
        List<Map<String, String>> occurrences;
        try {
            occurrences = (List<Map<String, String>>) AgentFeed.SINCE.invokeExact(mark.longValue());
        } catch (Throwable unexpected) {
            throw new ExtensionConfigurationException("loopdiag: cannot read the agent's findings (" + unexpected + ")");
        }
        Map<String, Integer> blocks = new LinkedHashMap<>(); // the same finding seen again only counts
        String note = "";
        for (Map<String, String> occurrence : occurrences) {
            String kind = occurrence.get(Feed.KIND);
            if (kind.equals(Feed.OVERWRITTEN)) {
                note = "\n(" + occurrence.get(Feed.TEXT) + ")";
            } else if (failOn.contains(kind)) {
                blocks.merge(occurrence.get(Feed.TEXT), 1, Integer::sum);
            }
        }
        if (blocks.isEmpty()) {
            return;
        }
        int total = blocks.values().stream().mapToInt(Integer::intValue).sum();
        StringBuilder message = new StringBuilder("loopdiag saw ").append(total).append(total == 1 ? " finding" : " findings")
                .append(" of ").append(String.join(", ", failOn(context))).append(" during this test:\n");
        blocks.forEach((block, count) -> message.append(count > 1 ? block.replaceFirst("\n", " (" + count + " times)\n") : block));
        throw new AssertionFailedError(message.append(note).toString().stripTrailing());
    }

    /** The kinds of the nearest {@link LoopdiagCheck}: on the method, its class, or an enclosing class. */
    private static String[] failOn(ExtensionContext context) {
        for (Optional<ExtensionContext> at = Optional.of(context); at.isPresent(); at = at.get().getParent()) {
            Optional<AnnotatedElement> element = at.get().getElement();
            Optional<LoopdiagCheck> check = element.flatMap(e -> AnnotationSupport.findAnnotation(e, LoopdiagCheck.class));
            if (check.isPresent()) {
                return check.get().failOn();
            }
        }
        return new String[] {Kind.BLOCKING_CALL_ID};
    }

    /** The agent's feed ({@link Feed}), looked up once: {@code mark()} throws IllegalStateException when the agent does not watch. */
    private static final class AgentFeed {
        static final MethodHandle MARK;
        static final MethodHandle SINCE;

        static {
            MethodHandle mark;
            MethodHandle since;
            try {
                Class<?> feed = Class.forName(Feed.CLASS, true, ClassLoader.getSystemClassLoader());
                mark = MethodHandles.publicLookup().findStatic(feed, Feed.MARK, MethodType.methodType(long.class));
                since = MethodHandles.publicLookup().findStatic(feed, Feed.SINCE, MethodType.methodType(List.class, long.class));
            } catch (ReflectiveOperationException | LinkageError absent) {
                // No agent: every mark says how to add it.
                mark = MethodHandles.throwException(long.class, IllegalStateException.class).bindTo(new IllegalStateException(
                        NOT_LOADED));
                since = MethodHandles.dropArguments(MethodHandles.constant(List.class, List.of()), 0, long.class);
            }
            MARK = mark;
            SINCE = since;
        }
    }
}
