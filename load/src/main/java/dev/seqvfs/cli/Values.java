package dev.seqvfs.cli;

import java.math.BigInteger;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Stack;
import picocli.CommandLine;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * How {@code seqvfs} reads option values, the same for every option of every command (registered on
 * the command line by {@link Main#commandLine()}; lists also name {@link ListElements} as their
 * preprocessor):
 *
 * <ul>
 *   <li>an empty value is refused, whatever the option ({@code --json ''}: "empty value");
 *   <li>a number, whole ({@code --clients}, {@code --ops}) or not ({@code --time}), and a name
 *       ({@code --compare}, {@code --driver}) are read without the whitespace around them: {@code "
 *       2"} is 2, as Java reads a fraction anyway; a path is taken as it is (a file name may start
 *       or end with a space);
 *   <li>a fraction is a decimal number ({@code 2.5}, {@code 1e3}): Java's type suffixes ({@code
 *       2d}, {@code 2f}), which would read as 2, are refused;
 *   <li>a list ({@code --clients 1,2,4}, {@code --compare host,shared-root}) refuses an empty
 *       element wherever it is: {@code 1,,2}, {@code 1,2,} and {@code ,1} alike.
 * </ul>
 *
 * A refused value is a {@link TypeConversionException} whose message says why; {@link ParseErrors}
 * prints it as {@code --opt VALUE: why}. Stateless; thread-safe.
 */
final class Values {
    private Values() {}

    /** Registers the converters on {@code cl} and every subcommand it has. */
    static void register(CommandLine cl) {
        cl.registerConverter(int.class, Values::toInt);
        cl.registerConverter(Integer.class, Values::toInt);
        cl.registerConverter(long.class, Values::toLong);
        cl.registerConverter(Long.class, Values::toLong);
        cl.registerConverter(double.class, Values::toDouble);
        cl.registerConverter(Double.class, Values::toDouble);
        cl.registerConverter(String.class, Values::toName);
        cl.registerConverter(Path.class, Values::toPath);
    }

    /**
     * Returns {@code value} as a message shows it: quoted when it is empty or starts or ends with
     * whitespace, so that what was typed is visible; as it is otherwise.
     */
    static String shown(String value) {
        return value.isEmpty() || !value.strip().equals(value) ? "'" + value + "'" : value;
    }

    private static String nonEmpty(String value) {
        String v = value.strip();
        if (v.isEmpty()) {
            throw new TypeConversionException("empty value");
        }
        return v;
    }

    private static String name(ArgSpec arg) {
        return arg instanceof OptionSpec o ? o.longestName() : arg.paramLabel();
    }

    static int toInt(String value) {
        return (int) whole(value, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    static long toLong(String value) {
        return whole(value, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    private static long whole(String value, long min, long max) {
        String v = nonEmpty(value);
        BigInteger n;
        try {
            n = new BigInteger(v);
        } catch (NumberFormatException e) {
            throw new TypeConversionException("not a whole number");
        }
        if (n.compareTo(BigInteger.valueOf(max)) > 0) {
            throw new TypeConversionException("too large (at most " + max + ")");
        }
        if (n.compareTo(BigInteger.valueOf(min)) < 0) {
            throw new TypeConversionException("too small (at least " + min + ")");
        }
        return n.longValueExact();
    }

    static double toDouble(String value) {
        String v = nonEmpty(value);
        char last = v.charAt(v.length() - 1);
        if ("dDfF".indexOf(last) >= 0) {
            throw new TypeConversionException("not a number");
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new TypeConversionException("not a number");
        }
    }

    static String toName(String value) {
        return nonEmpty(value);
    }

    static Path toPath(String value) {
        if (value.isEmpty()) {
            throw new TypeConversionException("empty value");
        }
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new TypeConversionException("not a valid path (" + e.getReason() + ")");
        }
    }

    /**
     * Refuses a list value with an empty element ({@code 1,,2}, {@code 1,2,}, {@code ,1}) before
     * picocli splits it (its split drops empty elements at the end, and only those); a value
     * without a comma is left to the element's converter. For options with {@code split = ","}.
     */
    static final class ListElements implements IParameterPreprocessor {
        /** Throws a {@link ParameterException} when the value on top of {@code args} is bad. */
        @Override
        public boolean preprocess(
                Stack<String> args,
                CommandSpec commandSpec,
                ArgSpec argSpec,
                Map<String, Object> info) {
            if (args.isEmpty()) {
                return false; // picocli reports the missing value
            }
            String value = args.peek();
            if (value.indexOf(',') < 0) {
                return false;
            }
            for (String element : value.split(",", -1)) {
                if (element.isBlank()) {
                    String why =
                            "empty element in the list (separate the values with single commas,"
                                    + " none at either end)";
                    throw new ParameterException(
                            commandSpec.commandLine(),
                            name(argSpec) + " " + shown(value) + ": " + why,
                            new TypeConversionException(why),
                            argSpec,
                            value);
                }
            }
            return false;
        }
    }
}
