package io.loopdiag.agent;

import com.fasterxml.jackson.core.JsonFactory;

/**
 * The agent's one JSON factory: every document it writes (the dump, the report, a control answer)
 * is streamed through Jackson's generator, so that starting the agent and dumping a JVM load no
 * object mapper (Jackson's data binding, about 300 classes and 90 ms at a JVM's start). Only the
 * text dump that a signal prints reads a dump back as trees ({@link SignalDump}).
 */
final class Json {
    static final JsonFactory FACTORY = new JsonFactory();

    private Json() {
    }
}
