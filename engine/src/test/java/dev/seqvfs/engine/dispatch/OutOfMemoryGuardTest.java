package dev.seqvfs.engine.dispatch;

import static org.junit.jupiter.api.Assertions.assertFalse;

import com.typesafe.config.ConfigFactory;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * An {@link OutOfMemoryError} in a guarded actor's handler costs that message only: the actor and
 * its actor system go on (unguarded, Pekko shuts the system down on the fatal error).
 */
class OutOfMemoryGuardTest {
    record Msg(boolean fail, ActorRef<String> replyTo) {}

    private static Behavior<Msg> counter(int n) {
        return Behaviors.receiveMessage(
                m -> {
                    if (m.fail()) {
                        throw new OutOfMemoryError("test: the heap ran out");
                    }
                    m.replyTo().tell("count " + n);
                    return counter(n + 1);
                });
    }

    @Test
    void outOfMemoryInAHandler_dropsTheMessage_andTheActorAndSystemGoOn() {
        ActorTestKit tk =
                ActorTestKit.create(
                        ConfigFactory.parseString("pekko.jvm-exit-on-fatal-error = off")
                                .withFallback(ActorTestKit.applicationTestConfig()));
        try {
            ActorRef<Msg> a = tk.spawn(OutOfMemoryGuard.guard(counter(0)));
            TestProbe<String> probe = tk.createTestProbe();
            a.tell(new Msg(false, probe.getRef()));
            probe.expectMessage("count 0");
            a.tell(new Msg(true, probe.getRef()));
            a.tell(new Msg(false, probe.getRef()));
            probe.expectMessage("count 1");
            assertFalse(tk.system().getWhenTerminated().toCompletableFuture().isDone());
        } finally {
            tk.shutdownTestKit();
        }
    }
}
