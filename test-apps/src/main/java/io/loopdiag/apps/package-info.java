/**
 * Scenario programs for loopdiag: each scenario is one small program that shows one event-loop
 * behaviour for real, run as {@code java -jar test-apps.jar SCENARIO}. {@link io.loopdiag.apps.Main}
 * runs the scenarios that {@link io.loopdiag.apps.Catalog} lists; {@link io.loopdiag.apps.Blocking}
 * is the shape shared by the blocking-* scenarios, and {@link io.loopdiag.apps.OtherThread} the
 * thread that wakes up their blocking calls. Most programs use loop-core and nothing else; the
 * netty-*, vertx-*, reactor-* and swing-* ones run on those loops instead, with
 * {@link io.loopdiag.apps.NettyScenario} shared by the Netty ones.
 */
package io.loopdiag.apps;
