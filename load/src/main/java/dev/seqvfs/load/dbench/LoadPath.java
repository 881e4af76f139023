package dev.seqvfs.load.dbench;

/**
 * A path argument of a loadfile line, in replay form: backslashes turned into slashes and, when it
 * lies in the captured client's directory {@code \clients\client1}, split into that prefix and the
 * rest, so that each client can put its own directory in front.
 *
 * <p>dbench substitutes {@code client1} with the client's name everywhere in the path; SeqVFS
 * replaces the leading {@code /clients/client1} component only, which is the same for every path of
 * {@code client.txt} and cannot touch a file whose name merely contains {@code client1}.
 *
 * @param inClientDir whether the path lies in (or is) the client's directory
 * @param rest the path after {@code /clients/client1} (empty or starting with '/') when {@code
 *     inClientDir}, else the whole path
 */
public record LoadPath(boolean inClientDir, String rest) {
    /** The captured client's directory, in replay form. */
    public static final String CLIENT_PREFIX = "/clients/client1";

    /** Converts a loadfile path ({@code \clients\client1\x}) to replay form. */
    public static LoadPath of(String loadfilePath) {
        String p = loadfilePath.replace('\\', '/');
        if (p.startsWith(CLIENT_PREFIX)
                && (p.length() == CLIENT_PREFIX.length()
                        || p.charAt(CLIENT_PREFIX.length()) == '/')) {
            return new LoadPath(true, p.substring(CLIENT_PREFIX.length()));
        }
        return new LoadPath(false, p);
    }

    /**
     * Returns the path a client replays: {@code clientDir + rest} inside the client's directory,
     * else {@code base + rest}.
     *
     * @param base where the replay's tree starts ({@code ""} for the SeqVFS root)
     * @param clientDir {@code base + "/clients/clientN"}
     */
    public String resolve(String base, String clientDir) {
        return inClientDir ? clientDir + rest : base + rest;
    }

    /** Returns the path as the loadfile spelled it, with backslashes. */
    public String loadfileForm() {
        return ((inClientDir ? CLIENT_PREFIX : "") + rest).replace('/', '\\');
    }
}
