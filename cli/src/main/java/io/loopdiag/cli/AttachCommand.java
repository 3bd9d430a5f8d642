package io.loopdiag.cli;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag attach PID}: loads the agent into a JVM that was started without it. JDK 21 and
 * later print a warning in the target when an agent is loaded this way, and a later JDK will refuse
 * unless the target runs with {@code -XX:+EnableDynamicAgentLoading}; starting the JVM with
 * {@code -javaagent:} avoids both, and then nothing needs loading for ps, pstree or dump.
 */
@Command(name = "attach", mixinStandardHelpOptions = true,
        header = "Loads the agent into a running JVM that was started without it.")
final class AttachCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PID", description = "the process id of a JVM of this user")
    long pid;

    @Option(names = "--options", paramLabel = "OPTIONS", description = "the agent's options, as after -javaagent:JAR= (slow=50ms,...)")
    String options;

    @Option(names = "--agent", paramLabel = "JAR", description = "the agent jar (default: the one this jar carries)")
    Path agentJar;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        try {
            Path jar = agentJar();
            Jvm jvm = Jvm.of(pid);
            if (Attach.controlSocket(jvm) != null) {
                out.println("JVM " + pid + " already runs the loopdiag agent: nothing to load");
                return ExitCodes.OK;
            }
            load(jvm, jar);
            if (Attach.controlSocket(jvm) == null) {
                throw new Failure("the agent did not start in JVM " + pid + " (its reason is on that JVM's stderr; bad --options?)");
            }
            out.println("loaded the agent into JVM " + pid + "; 'loopdiag ps " + pid + "' and 'loopdiag dump " + pid + "' now work.");
            out.println("note: JDK 21+ prints a warning on that JVM's stderr for an agent loaded this way; start it with -javaagent:"
                    + jar + " (or -XX:+EnableDynamicAgentLoading) to avoid it");
            return ExitCodes.OK;
        } catch (Failure failure) {
            spec.commandLine().getErr().println("loopdiag: " + failure.getMessage());
            return failure.exitCode;
        }
    }

    /** The jar given with {@code --agent}, or the one this jar carries. */
    private Path agentJar() throws Failure {
        if (agentJar != null) {
            if (!Files.isRegularFile(agentJar)) {
                throw new Failure("no agent jar at " + agentJar.toAbsolutePath() + " (give --agent JAR)", ExitCodes.USAGE);
            }
            return agentJar.toAbsolutePath();
        }
        try {
            return Jars.agent();
        } catch (IOException e) {
            throw new Failure("cannot put the agent jar where the JVM can load it (" + e.getMessage() + ")");
        }
    }

    private void load(Jvm jvm, Path jar) throws Failure {
        VirtualMachine vm = Attach.open(jvm);
        try {
            vm.loadAgent(jar.toString(), options);
        } catch (AgentLoadException e) {
            throw new Failure("JVM " + pid + " refused to load the agent (" + e.getMessage() + "): the JDK may disallow dynamic"
                    + " loading there; start it with -javaagent:" + jar + " or -XX:+EnableDynamicAgentLoading");
        } catch (AgentInitializationException e) {
            throw new Failure("the agent did not start in JVM " + pid + " (its reason is on that JVM's stderr; bad --options?)");
        } catch (IOException e) {
            throw new Failure("lost JVM " + pid + " while loading the agent (" + e.getMessage() + ")");
        } finally {
            Attach.close(vm);
        }
    }
}
