/**
 * Scenario programs for loopdiag: each class is one small program that shows one event-loop
 * behaviour for real, run as {@code java -jar test-apps.jar SCENARIO}. {@link io.loopdiag.apps.Main}
 * holds the registry of scenarios; the programs use loop-core and nothing else.
 */
package io.loopdiag.apps;
