package dev.tollgate.store.script;

import dev.tollgate.store.LuaScript;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds calls to {@code refund.lua}: what one allowed key group gives back when another group of the
 * same check denied the request. The keys are the ones the spend wrote (for a fixed window, the window
 * the store's clock chose), so a refund never touches a window or a log member it did not write.
 */
public final class Refunds {

    private Refunds() {
    }

    /**
     * @param spent the call that spent (its keys, in the spends' order)
     * @param reply what it answered: a sliding log's stamp names the members to remove
     */
    public static ScriptCall of(ScriptCall spent, List<Spend> spends, GroupReply reply) {
        List<String> args = new ArrayList<>(3 * spends.size());
        for (int i = 0; i < spends.size(); i++) {
            Spend spend = spends.get(i);
            switch (spend.rule().algorithm()) {
                case TOKEN_BUCKET -> {
                    args.add("bucket");
                    args.add(Long.toString(spend.cost() * 1000L));
                    args.add(Long.toString(spend.burstMilli()));
                }
                case FIXED_WINDOW -> {
                    args.add("window");
                    args.add(Integer.toString(spend.cost()));
                    args.add("-");
                }
                case SLIDING_LOG -> {
                    args.add("log");
                    args.add(Integer.toString(spend.cost()));
                    args.add(reply.stamp() + ":" + (i + 1));
                }
            }
        }
        return new ScriptCall(LuaScript.REFUND, spent.keys(), args);
    }
}
