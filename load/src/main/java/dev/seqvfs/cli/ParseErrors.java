package dev.seqvfs.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Answers what picocli refuses while parsing (a value that is not a number, an unknown option or
 * workload, a missing required option or value) the way the workloads answer their own bad input:
 * one line on stderr, {@code seqvfs load W: MESSAGE}, naming the option and the value ({@code --opt
 * VALUE: why}, the why from {@link Values}), and exit status 2 ({@link
 * CommandSpec#exitCodeOnInvalidInput()}), instead of picocli's message followed by the whole usage
 * text. {@code --help} says the rest. Stateless; thread-safe.
 */
final class ParseErrors implements IParameterExceptionHandler {
    /** Prints the one-line message of {@code ex} on its command's stderr and returns 2. */
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        PrintWriter err = cl.getErr();
        err.println(cl.getCommandSpec().qualifiedName() + ": " + message(ex));
        err.flush();
        return cl.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** Returns the one-line message for {@code ex}, without the command's name. */
    static String message(ParameterException ex) {
        CommandSpec spec = ex.getCommandLine().getCommandSpec();
        if (ex instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            return unmatched(spec, u);
        }
        if (ex instanceof MissingParameterException m && !m.getMissing().isEmpty()) {
            return missing(m);
        }
        if (ex instanceof OverwrittenOptionException o
                && o.getOverwritten() instanceof OptionSpec opt) {
            return opt.longestName() + " given twice: give it once";
        }
        ArgSpec arg = ex.getArgSpec();
        if (arg instanceof OptionSpec opt && ex.getValue() != null) {
            // Values' converters and list check say why in their exception's message
            String why =
                    ex.getCause() instanceof TypeConversionException t && t.getMessage() != null
                            ? t.getMessage()
                            : "not a valid "
                                    + elementType(opt).getSimpleName().toLowerCase(Locale.ROOT);
            return opt.longestName() + " " + Values.shown(ex.getValue()) + ": " + why;
        }
        return oneLine(ex.getMessage());
    }

    private static String unmatched(CommandSpec spec, UnmatchedArgumentException u) {
        String arg = u.getUnmatched().get(0);
        String help = "; see " + spec.qualifiedName() + " --help";
        if (arg.startsWith("-")) {
            List<String> near = u.getSuggestions();
            return arg
                    + ": unknown option"
                    + (near.isEmpty() ? "" : " (did you mean " + String.join(" or ", near) + "?)")
                    + help;
        }
        if (!spec.subcommands().isEmpty()) {
            String what = spec.name().equals("load") ? "workload" : "command";
            return arg
                    + ": no such "
                    + what
                    + " ("
                    + String.join(", ", spec.subcommands().keySet())
                    + ")";
        }
        return arg + ": unexpected argument (" + spec.name() + " takes options only)" + help;
    }

    private static String missing(MissingParameterException m) {
        ArgSpec a = m.getMissing().get(0);
        if (!(a instanceof OptionSpec opt)) {
            return oneLine(m.getMessage());
        }
        // picocli throws the same exception for an option given without its value and for a
        // required option not given at all; only its message tells them apart
        if (m.getMessage() != null && m.getMessage().contains("parameter for option")) {
            return opt.longestName() + " needs a value (" + opt.paramLabel() + ")";
        }
        return opt.longestName() + " " + opt.paramLabel() + " is required";
    }

    /** Returns the type of one value of {@code opt}: its own, or its elements' for a list. */
    private static Class<?> elementType(OptionSpec opt) {
        Class<?>[] aux = opt.auxiliaryTypes();
        return opt.isMultiValue() && aux != null && aux.length > 0 ? aux[0] : opt.type();
    }

    private static String oneLine(String s) {
        return s == null ? "bad input" : s.strip().replaceAll("\\s*\\R\\s*", "; ");
    }
}
