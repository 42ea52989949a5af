/*
 * Times, through the C API as marginalia-bench does, each query of queries.py's file in six ways, each on a
 * connection of its own (a connection's page cache is its own, as in the benchmark), in a random order per query
 * and round, after one warm-up round:
 *   plain (schema 2)    the words as typed, bm25 (the benchmark's reference), on today's content
 *   plain (stems)       the same statement on the content with the stems column
 *   today               the library's statements on today's content: each word's forms looked up, the widest
 *                       expression sorted by marginalia_rank, the count when the page is full
 *   stems column        the same with each word's keys looked up and the stems column's widest expression
 *   bm25, widest        the stems column's widest expression sorted by bm25 only: what widening costs by itself
 *   rank, as typed      the words as typed sorted by marginalia_rank: what the rank function costs by itself
 * Prints p50 and p95 of each, and their ratio to the plain statements. NOCOUNT=1 leaves out the count, NOLOOKUP=1
 * the lookups, PERQ=1 prints each query's p50 too.
 *
 *   cc -O2 -o stems_bench stems_bench.c ../../../Sources/CSearchRank/rank.c \
 *       -I../../../Sources/CSearchRank/include -lsqlite3 -lm
 *   ./stems_bench STORE CONTENT_V2 CONTENT_STEMS QUERIES [ROUNDS]
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int marginalia_register_rank(sqlite3 *db);

static const char *PLAIN =
    "SELECT p.id, p.document_id, d.title, p.text, snippet(passages_fts, 0, ?, ?, '…', 16), bm25(passages_fts), "
    "(SELECT count(*) FROM main.annotations a WHERE a.start_passage = p.id AND a.deleted = 0) "
    "FROM content.passages_fts JOIN content.passages p ON p.rowid = passages_fts.rowid "
    "JOIN content.documents d ON d.id = p.document_id WHERE passages_fts MATCH ? ORDER BY rank LIMIT ?";
static const char *RANKED =
    "SELECT p.id, p.document_id, d.title, p.text, snippet(passages_fts, 0, ?1, ?2, '…', 16), rank, "
    "(SELECT count(*) FROM main.annotations a WHERE a.start_passage = p.id AND a.deleted = 0) "
    "FROM content.passages_fts JOIN content.passages p ON p.rowid = passages_fts.rowid "
    "JOIN content.documents d ON d.id = p.document_id WHERE passages_fts MATCH ?3 AND rank MATCH ?4 "
    "ORDER BY rank LIMIT ?5 OFFSET ?6";
static const char *COUNT = "SELECT count(*) FROM content.passages_fts WHERE passages_fts MATCH ?1";
static const char *FORMS =
    "SELECT DISTINCT other.form FROM content.vocabulary typed JOIN content.vocabulary other "
    "ON other.stem = typed.stem WHERE typed.form = ?1 ORDER BY other.form";
static const char *KEYS =
    "SELECT DISTINCT typed.stem FROM content.vocabulary typed WHERE typed.form = ?1 AND EXISTS ("
    "SELECT 1 FROM content.vocabulary other WHERE other.stem = typed.stem AND other.form <> typed.form) "
    "ORDER BY typed.stem";

typedef struct {
    sqlite3 *db;
    sqlite3_stmt *plain, *ranked, *count, *lookup;
} Connection;

static int noCount, noLookup;
static long checksum;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static Connection openConnection(const char *store, const char *content, const char *lookup) {
    Connection c;
    char sql[2048];
    if (sqlite3_open_v2(store, &c.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) fail(c.db, "open");
    snprintf(sql, sizeof sql, "ATTACH DATABASE 'file:%s?mode=ro' AS content", content);
    if (sqlite3_exec(c.db, sql, NULL, NULL, NULL) != SQLITE_OK) fail(c.db, "attach");
    if (marginalia_register_rank(c.db) != SQLITE_OK) fail(c.db, "marginalia_register_rank");
    if (sqlite3_prepare_v2(c.db, PLAIN, -1, &c.plain, NULL) != SQLITE_OK) fail(c.db, "plain");
    if (sqlite3_prepare_v2(c.db, RANKED, -1, &c.ranked, NULL) != SQLITE_OK) fail(c.db, "ranked");
    if (sqlite3_prepare_v2(c.db, COUNT, -1, &c.count, NULL) != SQLITE_OK) fail(c.db, "count");
    if (sqlite3_prepare_v2(c.db, lookup, -1, &c.lookup, NULL) != SQLITE_OK) fail(c.db, "lookup");
    return c;
}

/* Steps a page to its end reading every column, as the benchmark's readPage does. */
static int readPage(sqlite3 *db, sqlite3_stmt *statement) {
    int rows = 0, rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
        for (int column = 0; column < 5; column++) checksum += (long)strlen((const char *)sqlite3_column_text(statement, column));
        checksum += (long)sqlite3_column_double(statement, 5) + (long)sqlite3_column_int64(statement, 6);
        rows++;
    }
    if (rc != SQLITE_DONE) fail(db, "step");
    return rows;
}

static int runPlain(Connection *c, const char *expression) {
    sqlite3_reset(c->plain);
    sqlite3_bind_text(c->plain, 1, "[", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(c->plain, 2, "]", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(c->plain, 3, expression, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(c->plain, 4, 20);
    return readPage(c->db, c->plain);
}

static int runRanked(Connection *c, const char *expression, const char *rank, const char *words, int lookups) {
    char buffer[4096];
    snprintf(buffer, sizeof buffer, "%s", words);
    char *rest = buffer;
    for (char *word; lookups && !noLookup && (word = strsep(&rest, " ")) != NULL;) {
        if (*word == '\0') continue;
        sqlite3_reset(c->lookup);
        sqlite3_bind_text(c->lookup, 1, word, -1, SQLITE_TRANSIENT);
        while (sqlite3_step(c->lookup) == SQLITE_ROW) checksum += (long)strlen((const char *)sqlite3_column_text(c->lookup, 0));
    }
    sqlite3_reset(c->ranked);
    sqlite3_bind_text(c->ranked, 1, "[", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(c->ranked, 2, "]", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(c->ranked, 3, expression, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(c->ranked, 4, rank, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(c->ranked, 5, 20);
    sqlite3_bind_int(c->ranked, 6, 0);
    int rows = readPage(c->db, c->ranked);
    if (rows == 20 && lookups && !noCount) {
        sqlite3_reset(c->count);
        sqlite3_bind_text(c->count, 1, expression, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(c->count) != SQLITE_ROW) fail(c->db, "count");
        checksum += (long)sqlite3_column_int64(c->count, 0);
    }
    return rows;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double percentile(const double *values, int n, double p) {
    double *sorted = malloc((size_t)n * sizeof *sorted);
    memcpy(sorted, values, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare);
    double result = sorted[(int)((n - 1) * p / 100.0 + 0.5)];
    free(sorted);
    return result;
}

enum { PLAIN2, PLAIN3, TODAY, STEMS, WIDEST, RANK, WAYS };
#define MAXQUERIES 200

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s STORE CONTENT_V2 CONTENT_STEMS QUERIES [ROUNDS]\n", argv[0]);
        return 64;
    }
    int rounds = argc > 5 ? atoi(argv[5]) : 5;
    noCount = getenv("NOCOUNT") != NULL;
    noLookup = getenv("NOLOOKUP") != NULL;
    Connection c[WAYS];
    for (int way = 0; way < WAYS; way++)
        c[way] = openConnection(argv[1], way == PLAIN2 || way == TODAY ? argv[2] : argv[3], way == TODAY ? FORMS : KEYS);
    static char *field[MAXQUERIES][7], typedRank[MAXQUERIES][512];
    int n = 0;
    char line[65536];
    FILE *in = fopen(argv[4], "r");
    if (in == NULL) return 66;
    while (n < MAXQUERIES && fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        char *rest = line;
        for (int i = 0; i < 7; i++) {
            char *part = strsep(&rest, "\t");
            field[n][i] = strdup(part != NULL ? part : "");
        }
        int words = *field[n][6] ? 1 : 0;
        for (const char *p = field[n][6]; *p; p++) words += *p == ' ';
        if (words == 0) words = 1;
        char *out = typedRank[n] + sprintf(typedRank[n], "marginalia_rank('&%d", words);
        for (int i = 0; i < words; i++) out += sprintf(out, " |1 %d:0", i);
        strcpy(out, "')");
        n++;
    }
    const char *names[WAYS] = {"plain, words as typed (schema 2)", "plain, words as typed (stems)",
                               "today: forms, rank, count", "stems column: keys, rank, count",
                               "bm25 only, stems widest", "rank only, words as typed"};
    double *times[WAYS];
    for (int way = 0; way < WAYS; way++) times[way] = malloc(sizeof(double) * (size_t)(n * rounds));
    srand(1);
    int measured = 0;
    for (int round = 0; round <= rounds; round++) {
        for (int q = 0; q < n; q++) {
            int order[WAYS], rows[WAYS];
            double ms[WAYS];
            for (int i = 0; i < WAYS; i++) order[i] = i;
            for (int i = WAYS - 1; i > 0; i--) {
                int j = rand() % (i + 1), swap = order[i];
                order[i] = order[j];
                order[j] = swap;
            }
            for (int turn = 0; turn < WAYS; turn++) {
                int way = order[turn];
                double start = now();
                switch (way) {
                case PLAIN2: case PLAIN3: rows[way] = runPlain(&c[way], field[q][1]); break;
                case TODAY: rows[way] = runRanked(&c[way], field[q][2], field[q][3], field[q][6], 1); break;
                case STEMS: rows[way] = runRanked(&c[way], field[q][4], field[q][5], field[q][6], 1); break;
                case WIDEST: rows[way] = runPlain(&c[way], field[q][4]); break;
                case RANK: rows[way] = runRanked(&c[way], field[q][1], typedRank[q], "", 0); break;
                }
                ms[way] = (now() - start) * 1000;
            }
            if (rows[TODAY] != rows[STEMS] || rows[PLAIN2] != rows[PLAIN3])
                fprintf(stderr, "%s: rows differ (today %d, stems %d; plain %d, %d)\n", field[q][0], rows[TODAY],
                        rows[STEMS], rows[PLAIN2], rows[PLAIN3]);
            if (round == 0) continue;
            for (int way = 0; way < WAYS; way++) times[way][measured] = ms[way];
            measured++;
        }
    }
    if (getenv("PERQ"))
        for (int q = 0; q < n; q++) {
            printf("%-28s", field[q][0]);
            for (int way = 0; way < WAYS; way++) {
                double values[64];
                int count = 0;
                for (int r = 0; r < rounds && count < 64; r++) values[count++] = times[way][r * n + q];
                printf(" %7.3f", percentile(values, count, 50));
            }
            printf("\n");
        }
    double plain2 = percentile(times[PLAIN2], measured, 50), plain3 = percentile(times[PLAIN3], measured, 50);
    for (int way = 0; way < WAYS; way++) {
        double p50 = percentile(times[way], measured, 50);
        printf("%-34s p50 %.3f ms  p95 %.3f ms  p50 / plain (schema 2) %.2f  p50 / plain (stems) %.2f\n", names[way], p50,
               percentile(times[way], measured, 95), p50 / plain2, p50 / plain3);
    }
    return checksum == -1;
}
