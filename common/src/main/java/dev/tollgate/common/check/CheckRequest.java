package dev.tollgate.common.check;

import java.util.List;

/** What a gateway asks: may this request spend {@code cost} from each entry's limit? */
public record CheckRequest(String domain, List<CheckEntry> entries) {
}
