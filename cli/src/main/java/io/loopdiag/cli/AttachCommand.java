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

    @Option(names = "--agent", paramLabel = "JAR", description = "the agent jar (default: the one built beside this jar)")
    Path agentJar;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path jar = (agentJar != null ? agentJar : Paths.agentJar()).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            err.println("loopdiag: no agent jar at " + jar + " (build with ./build package, or give --agent JAR)");
            return ExitCodes.USAGE;
        }
        Target target;
        try {
            target = Target.of(pid);
            if (target.systemProperties().getProperty(Target.CONTROL_PROPERTY) != null) {
                out.println("JVM " + pid + " already runs the loopdiag agent: nothing to load");
                return ExitCodes.OK;
            }
        } catch (Target.Failure failure) {
            err.println("loopdiag: " + failure.getMessage());
            return failure.exitCode;
        }
        VirtualMachine vm;
        try {
            vm = target.attach();
        } catch (Target.Failure failure) {
            err.println("loopdiag: " + failure.getMessage());
            return failure.exitCode;
        }
        try {
            vm.loadAgent(jar.toString(), options);
        } catch (AgentLoadException e) {
            err.println("loopdiag: JVM " + pid + " refused to load the agent (" + e.getMessage() + "): the JDK may disallow dynamic"
                    + " loading there; start it with -javaagent:" + jar + " or -XX:+EnableDynamicAgentLoading");
            return ExitCodes.FINDINGS_OR_FAILURE;
        } catch (AgentInitializationException e) {
            err.println("loopdiag: the agent did not start in JVM " + pid + " (its reason is on that JVM's stderr; bad --options?)");
            return ExitCodes.FINDINGS_OR_FAILURE;
        } catch (IOException e) {
            err.println("loopdiag: lost JVM " + pid + " while loading the agent (" + e.getMessage() + ")");
            return ExitCodes.FINDINGS_OR_FAILURE;
        } finally {
            Target.detach(vm);
        }
        try {
            if (target.systemProperties().getProperty(Target.CONTROL_PROPERTY) == null) {
                err.println("loopdiag: the agent did not start in JVM " + pid + " (its reason is on that JVM's stderr; bad --options?)");
                return ExitCodes.FINDINGS_OR_FAILURE;
            }
        } catch (Target.Failure failure) {
            err.println("loopdiag: " + failure.getMessage());
            return failure.exitCode;
        }
        out.println("loaded the agent into JVM " + pid + "; 'loopdiag ps " + pid + "' and 'loopdiag dump " + pid + "' now work.");
        out.println("note: JDK 21+ prints a warning on that JVM's stderr for an agent loaded this way; start it with -javaagent:"
                + jar + " (or -XX:+EnableDynamicAgentLoading) to avoid it");
        return ExitCodes.OK;
    }
}
