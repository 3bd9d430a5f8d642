/**
 * The loopdiag Java agent. Loaded by the JVM through {@code -javaagent:} ({@code premain}) or by
 * {@code loopdiag attach} ({@code agentmain}); both call one idempotent {@code install}.
 */
package io.loopdiag.agent;
