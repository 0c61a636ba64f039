// Order ids and their search (lib/domain: shared with the browser, whose Orders page says how
// much of an id to type).

/**
 * The shortest id prefix the Orders list searches. A prefix is looked up by the primary key's
 * range (ids are random lower-case hex, so those starting with p are exactly the ones from p up
 * to, not including, p + "g"), over every reseller's orders: a 4-character one matches one order
 * in 65,536 (15 at 1M orders, 150 at 10M). A 2-character one (one in 256, about 3,900 at 1M)
 * read and counted enough rows to hold SQLite's event loop 25 ms (bench/README.md).
 */
export const ID_PREFIX_MIN = 4;
