package io.loopdiag.junit;

import io.loopdiag.protocol.Kind;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails each test (of the annotated class, or the annotated method) during which a loop saw a
 * finding of a kind in {@link #failOn}, with the finding's description and stack as the failure.
 * Needs the loopdiag agent in the test JVM; without it the test fails and says how to add it.
 */
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(LoopdiagExtension.class)
public @interface LoopdiagCheck {
    /** The kinds that fail a test: {@code blocking-call}, {@code slow-callback}, {@code loop-stall}, {@code never-awaited}, {@code lost-exception}. */
    String[] failOn() default {Kind.BLOCKING_CALL_ID};
}
