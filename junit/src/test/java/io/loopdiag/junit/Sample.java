package io.loopdiag.junit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Marks a sample test class: one that the tests of this module run through {@link SampleRun} (the
 * JUnit Platform's {@code EngineTestKit}) to look at its outcome, and that never runs as a test of
 * its own. The samples are kept out twice over: they are static nested classes, which Surefire's
 * and Failsafe's default excludes ({@code **}{@code /*$*}) leave out, and this condition disables
 * them unless the configuration parameter {@link SampleRun#PARAMETER} is set, which only
 * {@link SampleRun} does (an IDE that finds them shows them skipped, saying why).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(Sample.OnlyThroughSampleRun.class)
@interface Sample {

    /** Enables a sample only inside {@link SampleRun}. */
    final class OnlyThroughSampleRun implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(SampleRun.PARAMETER).isPresent()
                    ? ConditionEvaluationResult.enabled("run by SampleRun")
                    : ConditionEvaluationResult.disabled("a sample: it runs only through SampleRun, whose test looks at its outcome");
        }
    }
}
