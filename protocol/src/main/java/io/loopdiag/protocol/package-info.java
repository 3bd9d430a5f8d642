/**
 * What loopdiag's modules agree on, defined once: the agent writes these names, the CLI and the
 * JUnit extension read them, and loop-core's snapshots use the same words. A name that appears
 * in a JSON document, a control command or a reflective call is a constant here and nowhere
 * else; so are the escaping of text that comes from the application ({@link
 * io.loopdiag.protocol.Text}) and the rule that tells the application's stack frames from the
 * JDK's and loopdiag's own ({@link io.loopdiag.protocol.Frame}). JDK types only, no state: every
 * module carries its own copy (the agent, the CLI and the JUnit extension shade it, relocated).
 */
package io.loopdiag.protocol;
