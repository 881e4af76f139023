package dev.seqvfs.load.dbench;

/**
 * SMB search patterns (FIND_FIRST), matched case-insensitively as a Windows server does: {@code *}
 * any run of characters, {@code ?} one character, and the DOS wildcards a client sends for {@code
 * *.EXT} style patterns, as [MS-FSA] 2.1.4.4 defines them: {@code <} (DOS_STAR) any run that does
 * not go past the name's last period, {@code >} (DOS_QM) one character, or nothing at a period or
 * at the end, {@code "} (DOS_DOT) a period, or nothing at the end.
 *
 * <p>Stateless; thread-safe.
 */
public final class Wildcard {
    private Wildcard() {}

    /** Returns whether {@code name} contains one of the wildcard characters dbench looks for. */
    public static boolean hasWildcard(String pattern) {
        for (int i = 0; i < pattern.length(); i++) {
            switch (pattern.charAt(i)) {
                case '*':
                case '?':
                case '<':
                case '>':
                case '"':
                    return true;
                default:
                    break;
            }
        }
        return false;
    }

    /** Returns whether {@code name} (one directory entry) matches {@code pattern}. */
    public static boolean matches(String pattern, String name) {
        return match(pattern, 0, name, 0, name.lastIndexOf('.'));
    }

    private static boolean match(String p, int pi, String n, int ni, int lastDot) {
        int plen = p.length();
        int nlen = n.length();
        while (pi < plen) {
            char c = p.charAt(pi);
            switch (c) {
                case '*':
                    for (int k = ni; k <= nlen; k++) {
                        if (match(p, pi + 1, n, k, lastDot)) {
                            return true;
                        }
                    }
                    return false;
                case '<':
                    {
                        // up to (not past) the last period; a name without one is all fair game
                        int limit = lastDot < ni ? nlen : lastDot;
                        for (int k = ni; k <= limit; k++) {
                            if (match(p, pi + 1, n, k, lastDot)) {
                                return true;
                            }
                        }
                        return false;
                    }
                case '>':
                    if (ni >= nlen || n.charAt(ni) == '.') {
                        while (pi < plen && p.charAt(pi) == '>') {
                            pi++;
                        }
                        continue;
                    }
                    pi++;
                    ni++;
                    continue;
                case '"':
                    if (ni < nlen && n.charAt(ni) == '.') {
                        ni++;
                    } else if (ni != nlen) {
                        return false;
                    }
                    pi++;
                    continue;
                case '?':
                    if (ni >= nlen) {
                        return false;
                    }
                    pi++;
                    ni++;
                    continue;
                default:
                    if (ni >= nlen || !sameIgnoringCase(c, n.charAt(ni))) {
                        return false;
                    }
                    pi++;
                    ni++;
            }
        }
        return ni == nlen;
    }

    private static boolean sameIgnoringCase(char a, char b) {
        if (a == b) {
            return true;
        }
        char ua = Character.toUpperCase(a);
        char ub = Character.toUpperCase(b);
        return ua == ub || Character.toLowerCase(ua) == Character.toLowerCase(ub);
    }
}
