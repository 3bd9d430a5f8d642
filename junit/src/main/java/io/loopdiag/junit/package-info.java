/**
 * The JUnit 5 side of loopdiag's CI gate: {@link io.loopdiag.junit.LoopdiagCheck} fails a test
 * during which a loop saw a finding of a chosen kind, naming the call and its stack. The findings
 * come from the loopdiag agent in the same JVM (given by Surefire's {@code argLine}).
 */
package io.loopdiag.junit;
