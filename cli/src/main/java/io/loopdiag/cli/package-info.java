/**
 * The {@code loopdiag} command: one Picocli class per verb, each thin (parse, call, format). Exit
 * codes live in {@link io.loopdiag.cli.ExitCodes} and are listed in {@code --help}.
 */
package io.loopdiag.cli;
