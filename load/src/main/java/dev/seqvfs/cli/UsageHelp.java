package dev.seqvfs.cli;

import java.util.ArrayList;
import java.util.IllegalFormatException;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import picocli.CommandLine.Help;
import picocli.CommandLine.IHelpFactory;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * The usage help of every {@code seqvfs} command: picocli's layout, with lines broken only at
 * spaces. picocli wraps with {@link java.text.BreakIterator#getLineInstance()}, which also breaks
 * after {@code '.'} and {@code '/'}, splitting paths ({@code src.} / {@code zip}), configuration
 * keys and option labels ({@code --chart=FILE.} / {@code svg|png}) across lines. Here the synopsis,
 * the description, the command list and the options' descriptions are wrapped first, at spaces,
 * into lines that fit their column, so picocli never has to break one; an option stays on the line
 * of its value ({@code --time 10}), and a word longer than its column stands alone on its line.
 * Widths are in columns, ANSI escape codes not counted.
 *
 * <p>Installed by {@link Main#commandLine()} ({@link #FACTORY}); one instance per command and help
 * request, not shared between threads.
 */
final class UsageHelp extends Help {
    /** Creates this help for every command. */
    static final IHelpFactory FACTORY = UsageHelp::new;

    /**
     * picocli's largest synopsis indent, as a fraction of the width (its private
     * MAX_SYNOPSIS_AUTO_INDENT_THRESHOLD).
     */
    private static final double MAX_AUTO_INDENT = 0.9;

    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*m");

    /** A long option on its own, no punctuation after it: {@code --time}. */
    private static final Pattern OPTION = Pattern.compile("--[a-z][a-z0-9-]*");

    private static final String EOL = System.lineSeparator();

    private UsageHelp(CommandSpec spec, ColorScheme scheme) {
        super(spec, scheme);
    }

    private int width() {
        return commandSpec().usageMessage().width();
    }

    /** Returns the synopsis from the command name on, wrapped at spaces under the first option. */
    @Override
    protected String insertSynopsisCommandName(int synopsisHeadingLength, Ansi.Text details) {
        UsageMessageSpec usage = commandSpec().usageMessage();
        String name = commandSpec().qualifiedName();
        int indent = synopsisHeadingLength + name.length() + 1;
        if (indent > usage.synopsisAutoIndentThreshold() * width()) { // as picocli
            indent = usage.synopsisIndent() < 0 ? synopsisHeadingLength : usage.synopsisIndent();
            indent = Math.min(indent, (int) (MAX_AUTO_INDENT * width()));
        }
        String text = colorScheme().commandText(name).toString() + details.toString();
        List<String> lines = wrap(text, width() - synopsisHeadingLength, width() - indent);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            sb.append(i == 0 ? "" : " ".repeat(indent)).append(lines.get(i)).append(EOL);
        }
        return sb.toString();
    }

    /** Returns the description, each paragraph wrapped at spaces to the usage width. */
    @Override
    public String description(Object... params) {
        StringBuilder sb = new StringBuilder();
        for (String paragraph : commandSpec().usageMessage().description()) {
            for (Ansi.Text line : colorScheme().text(format(paragraph, params)).splitLines()) {
                for (String l : wrap(line.toString(), width(), width())) {
                    sb.append(l).append(EOL);
                }
            }
        }
        return sb.toString();
    }

    /**
     * Returns the list of subcommands, names and the first line of their description, wrapped at
     * spaces.
     */
    @Override
    public String commandList(Map<String, Help> subcommands) {
        if (subcommands.isEmpty()) {
            return "";
        }
        int nameWidth = 0;
        for (String n : subcommands.keySet()) {
            nameWidth = Math.max(nameWidth, n.length());
        }
        nameWidth = Math.min(nameWidth, width() / 2);
        int column = 2 + nameWidth + 2; // as picocli: two spaces, the name, two spaces
        StringBuilder sb = new StringBuilder();
        for (Help help : subcommands.values()) {
            UsageMessageSpec usage = help.commandSpec().usageMessage();
            String first =
                    usage.header().length > 0
                            ? usage.header()[0]
                            : usage.description().length > 0 ? usage.description()[0] : "";
            String names = help.commandNamesText(", ").toString();
            List<String> lines = new ArrayList<>();
            for (Ansi.Text t : colorScheme().text(format(first)).splitLines()) {
                lines.addAll(wrap(t.toString(), width() - column, width() - column - 2));
            }
            String lead = "  " + names;
            if (visibleLength(lead) + 2 > column) {
                sb.append(lead).append(EOL);
                lead = "";
            }
            for (int i = 0; i < lines.size(); i++) {
                String pad =
                        " ".repeat(Math.max(0, column - visibleLength(lead)) + (i == 0 ? 0 : 2));
                sb.append((lead + pad + lines.get(i)).stripTrailing()).append(EOL);
                lead = "";
            }
        }
        return sb.toString();
    }

    /**
     * Returns picocli's option layout whose option renderer wraps each description at spaces to its
     * column.
     */
    @Override
    public Layout createDefaultLayout(
            List<OptionSpec> options, List<PositionalParamSpec> positionals, ColorScheme scheme) {
        TextTable table =
                TextTable.forDefaultColumns(
                        scheme, calcLongOptionColumnWidth(options, positionals, scheme), width());
        table.setAdjustLineBreaksForWideCJKCharacters(
                commandSpec().usageMessage().adjustLineBreaksForWideCJKCharacters());
        Column description = table.columns()[table.columns().length - 1];
        int textWidth = description.width - description.indent;
        IOptionRenderer base = createDefaultOptionRenderer();
        IOptionRenderer wrapping =
                (option, labels, s) ->
                        wrapDescription(base.render(option, labels, s), textWidth, s);
        return new Layout(scheme, table, wrapping, createDefaultParameterRenderer());
    }

    /**
     * Returns {@code rows} with the last column of each row wrapped at spaces into rows of at most
     * {@code width} columns, continuation lines indented by two, as picocli's own.
     */
    private static Ansi.Text[][] wrapDescription(
            Ansi.Text[][] rows, int width, ColorScheme scheme) {
        List<Ansi.Text[]> out = new ArrayList<>();
        for (Ansi.Text[] row : rows) {
            int last = row.length - 1;
            List<String> lines = wrap(row[last].plainString(), width, width - 2);
            for (int i = 0; i < lines.size(); i++) {
                Ansi.Text[] r = i == 0 ? row.clone() : emptyRow(row.length, scheme);
                r[last] = scheme.ansi().new Text((i == 0 ? "" : "  ") + lines.get(i), scheme);
                out.add(r);
            }
        }
        return out.toArray(Ansi.Text[][]::new);
    }

    private static Ansi.Text[] emptyRow(int n, ColorScheme scheme) {
        Ansi.Text[] r = new Ansi.Text[n];
        for (int i = 0; i < n; i++) {
            r[i] = scheme.ansi().new Text("", scheme);
        }
        return r;
    }

    /**
     * Breaks {@code text} at spaces into lines of at most {@code first} columns (the first line)
     * and {@code rest} (the others), ANSI escape codes not counted, never between an option and its
     * value ({@link #words}); a word longer than its line stands alone. Returns one empty line for
     * an empty text.
     */
    static List<String> wrap(String text, int first, int rest) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        int len = 0;
        for (String word : words(text)) {
            int w = visibleLength(word);
            int max = lines.isEmpty() ? first : rest;
            if (len > 0 && len + 1 + w > max) {
                lines.add(line.toString());
                line.setLength(0);
                len = 0;
            }
            if (len > 0) {
                line.append(' ');
                len++;
            }
            line.append(word);
            len += w;
        }
        lines.add(line.toString());
        return lines;
    }

    /**
     * Returns the words of {@code text}, split at spaces, except that an option and its value
     * ({@code --time 10}, {@code --tree /usr/lib/jvm/.../src.zip}) stay one word: an example
     * command is not broken between the two.
     */
    private static List<String> words(String text) {
        List<String> words = new ArrayList<>();
        String[] split = text.strip().split(" +", -1);
        for (int i = 0; i < split.length; i++) {
            String w = split[i];
            if (OPTION.matcher(ANSI.matcher(w).replaceAll("")).matches()
                    && i + 1 < split.length
                    && !split[i + 1].startsWith("-")) {
                w = w + " " + split[++i];
            }
            words.add(w);
        }
        return words;
    }

    /** Returns the columns {@code s} takes on a terminal: its length without ANSI escape codes. */
    static int visibleLength(String s) {
        return ANSI.matcher(s).replaceAll("").length();
    }

    @SuppressWarnings(
            "AnnotateFormatMethod") // s is picocli's text, read at run time: no constant to check
    private static String format(String s, Object... params) {
        try {
            return s == null ? "" : String.format(s, params); // as picocli: %n is a line break
        } catch (IllegalFormatException e) {
            return s;
        }
    }
}
