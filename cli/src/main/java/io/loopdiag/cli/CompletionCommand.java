package io.loopdiag.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code loopdiag completion bash|zsh}: the shell completion script of every verb and option, as
 * picocli's {@link AutoComplete} writes it from the commands themselves. One script serves both
 * shells: under zsh it loads zsh's {@code bashcompinit} itself.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
        header = "Prints the shell completion script of every verb and option.",
        description = {"bash: source <(loopdiag completion bash), or save it in /etc/bash_completion.d/loopdiag.",
            "zsh: source <(loopdiag completion zsh) in ~/.zshrc."})
final class CompletionCommand implements Callable<Integer> {
    enum Shell { bash, zsh }

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "SHELL", description = "bash or zsh")
    Shell shell;

    @Override
    public Integer call() {
        spec.commandLine().getOut().print(AutoComplete.bash("loopdiag", spec.root().commandLine()));
        spec.commandLine().getOut().flush();
        return ExitCodes.OK;
    }
}
