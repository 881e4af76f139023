package dev.seqvfs.nio;

import java.util.regex.PatternSyntaxException;

/**
 * Converts a glob to a {@link java.util.regex.Pattern} as {@link
 * java.nio.file.FileSystem#getPathMatcher} specifies it for Unix: {@code *} matches within a name,
 * {@code **} across names, {@code ?} one character but {@code /}, {@code [...]} a class ({@code !}
 * negates, {@code -} ranges, never {@code /}), {@code {a,b}} alternatives (not nested), {@code \}
 * escapes. Stateless.
 */
final class Globs {
    private static final String REGEX_META = ".^$+{[]|()";
    private static final String GLOB_META = "\\*?[{";

    private Globs() {}

    private static boolean isRegexMeta(char c) {
        return REGEX_META.indexOf(c) >= 0;
    }

    private static boolean isGlobMeta(char c) {
        return GLOB_META.indexOf(c) >= 0;
    }

    static String toRegex(String glob) {
        boolean inGroup = false;
        StringBuilder regex = new StringBuilder("^");
        int i = 0;
        while (i < glob.length()) {
            char c = glob.charAt(i++);
            switch (c) {
                case '\\':
                    if (i == glob.length()) {
                        throw new PatternSyntaxException("No character to escape", glob, i - 1);
                    }
                    char next = glob.charAt(i++);
                    if (isGlobMeta(next) || isRegexMeta(next)) {
                        regex.append('\\');
                    }
                    regex.append(next);
                    break;
                case '/':
                    regex.append(c);
                    break;
                case '[':
                    regex.append("[[^/]&&[");
                    if (i < glob.length() && glob.charAt(i) == '^') {
                        regex.append("\\^");
                        i++;
                    } else {
                        if (i < glob.length() && glob.charAt(i) == '!') {
                            regex.append('^');
                            i++;
                        }
                        if (i < glob.length() && glob.charAt(i) == '-') {
                            regex.append('-');
                            i++;
                        }
                    }
                    boolean hasRangeStart = false;
                    char last = 0;
                    while (i < glob.length()) {
                        c = glob.charAt(i++);
                        if (c == ']') {
                            break;
                        }
                        if (c == '/') {
                            throw new PatternSyntaxException(
                                    "Explicit 'name separator' in class", glob, i - 1);
                        }
                        if (c == '\\'
                                || c == '['
                                || c == '&' && i < glob.length() && glob.charAt(i) == '&') {
                            regex.append('\\');
                        }
                        regex.append(c);
                        if (c == '-') {
                            if (!hasRangeStart) {
                                throw new PatternSyntaxException("Invalid range", glob, i - 1);
                            }
                            if (i >= glob.length()) {
                                break;
                            }
                            c = glob.charAt(i++);
                            if (c < last) {
                                throw new PatternSyntaxException("Invalid range", glob, i - 3);
                            }
                            regex.append(c);
                            hasRangeStart = false;
                        } else {
                            hasRangeStart = true;
                            last = c;
                        }
                    }
                    if (c != ']') {
                        throw new PatternSyntaxException("Missing ']", glob, i - 1);
                    }
                    regex.append("]]");
                    break;
                case '{':
                    if (inGroup) {
                        throw new PatternSyntaxException("Cannot nest groups", glob, i - 1);
                    }
                    regex.append("(?:(?:");
                    inGroup = true;
                    break;
                case '}':
                    if (inGroup) {
                        regex.append("))");
                        inGroup = false;
                    } else {
                        regex.append('}');
                    }
                    break;
                case ',':
                    if (inGroup) {
                        regex.append(")|(?:");
                    } else {
                        regex.append(',');
                    }
                    break;
                case '*':
                    if (i < glob.length() && glob.charAt(i) == '*') {
                        regex.append(".*");
                        i++;
                    } else {
                        regex.append("[^/]*");
                    }
                    break;
                case '?':
                    regex.append("[^/]");
                    break;
                default:
                    if (isRegexMeta(c)) {
                        regex.append('\\');
                    }
                    regex.append(c);
            }
        }
        if (inGroup) {
            throw new PatternSyntaxException("Missing '}", glob, i - 1);
        }
        return regex.append('$').toString();
    }
}
