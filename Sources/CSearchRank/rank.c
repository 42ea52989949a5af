/*
 * marginalia_rank: the order of a reader's search in one FTS5 pass.
 *
 * A search is looked for in tiers: the words as typed, then their other forms, then their prefixes. The widest
 * tier's FTS5 expression finds every passage of every tier; this function, used as that query's rank
 * (`rank MATCH 'marginalia_rank(''TREE'', …)'`, https://www.sqlite.org/fts5.html#sorting_by_auxiliary_function_results),
 * tells which tier a passage belongs to, whether it holds the words with the diacritics typed, and its bm25
 * score, so that FTS5 sorts the matches itself and the query computes snippets for the rows it returns only.
 *
 * Arguments:
 *   TREE   the expression's structure, in prefix notation, tokens separated by spaces:
 *          "&N" (all of the next N nodes match: the node's tier is the highest of theirs),
 *          "|N" (any of them: the lowest), "P:T" (phrase number P of the expression, in the tier T).
 *   then pairs of byte strings, one pair per word typed with a diacritic (its two spellings of ș and ț):
 *          a passage holding, for every pair, one spelling or the other, in its text lowercased as SQLite's
 *          lower() does (ASCII letters only), comes first within its tier.
 *
 * The result: (2 * tier + (spelled ? 0 : 1)) * 1e6 + bm25, smaller first; bm25 as FTS5's bm25() computes it
 * (https://www.sqlite.org/fts5.html#the_bm25_function: k1 = 1.2, b = 0.75, every column weighted 1), negative,
 * and far smaller in magnitude than 1e6.
 */
#include "CSearchRank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIER_NONE 1000000

/* The statistics of a query, the same for every row: computed at its first row, kept as the query's auxdata. */
typedef struct {
    int phrases;
    double averageLength;
    double *idf; /* per phrase */
    int *tier; /* per phrase: the tier the tree gives it (TIER_NONE for a phrase excluded with NOT) */
    double *frequency; /* per phrase, for the row at hand: its instances (0 when the row lacks it) */
} RankData;

static void rank_data_free(void *pointer) {
    RankData *data = pointer;
    if (data == NULL) return;
    free(data->idf);
    free(data->tier);
    free(data->frequency);
    free(data);
}

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
    (void)api;
    (void)fts;
    (*(sqlite3_int64 *)user)++;
    return SQLITE_OK;
}

/* The tier of each phrase named in the tree (its "P:T" leaves). */
static void phrase_tiers(const char *tree, int *tiers, int phrases) {
    for (int phrase = 0; phrase < phrases; phrase++) tiers[phrase] = TIER_NONE;
    for (const char *at = tree; at != NULL && *at != '\0';) {
        while (*at == ' ') at++;
        const char *end = at;
        while (*end != '\0' && *end != ' ') end++;
        const char *colon = memchr(at, ':', (size_t)(end - at));
        if (colon != NULL) {
            long phrase = strtol(at, NULL, 10), tier = strtol(colon + 1, NULL, 10);
            if (phrase >= 0 && phrase < phrases) tiers[phrase] = (int)tier;
        }
        at = end;
    }
}

static int rank_data(const Fts5ExtensionApi *api, Fts5Context *fts, const char *tree, RankData **out) {
    RankData *data = api->xGetAuxdata(fts, 0);
    if (data != NULL) {
        *out = data;
        return SQLITE_OK;
    }
    data = calloc(1, sizeof(RankData));
    if (data == NULL) return SQLITE_NOMEM;
    int phrases = api->xPhraseCount(fts);
    data->phrases = phrases;
    data->idf = calloc((size_t)phrases + 1, sizeof(double));
    data->tier = calloc((size_t)phrases + 1, sizeof(int));
    data->frequency = calloc((size_t)phrases + 1, sizeof(double));
    if (data->idf == NULL || data->tier == NULL || data->frequency == NULL) {
        rank_data_free(data);
        return SQLITE_NOMEM;
    }
    phrase_tiers(tree, data->tier, phrases);
    sqlite3_int64 rows = 0, tokens = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    data->averageLength = rows > 0 ? (double)tokens / (double)rows : 1.0;
    for (int phrase = 0; rc == SQLITE_OK && phrase < phrases; phrase++) {
        sqlite3_int64 hits = 0;
        rc = api->xQueryPhrase(fts, phrase, &hits, count_row);
        double idf = log((rows - hits + 0.5) / (hits + 0.5));
        data->idf[phrase] = idf <= 0.0 ? 1e-6 : idf;
    }
    if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, data, rank_data_free);
    if (rc != SQLITE_OK) {
        rank_data_free(data);
        return rc;
    }
    *out = data;
    return SQLITE_OK;
}

/* The tier of the node at *cursor in the tree (advancing past it), given which phrases the row holds. */
static int tree_tier(const char **cursor, const double *frequency, int phrases, int *malformed) {
    const char *at = *cursor;
    while (*at == ' ') at++;
    char kind = *at;
    if (kind == '&' || kind == '|') {
        char *end;
        long count = strtol(at + 1, &end, 10);
        *cursor = end;
        if (end == at + 1 || count < 1) {
            *malformed = 1;
            return TIER_NONE;
        }
        int tier = kind == '&' ? 0 : TIER_NONE;
        for (long child = 0; child < count && !*malformed; child++) {
            int childTier = tree_tier(cursor, frequency, phrases, malformed);
            if (kind == '&' ? childTier > tier : childTier < tier) tier = childTier;
        }
        return tier;
    }
    char *end;
    long phrase = strtol(at, &end, 10);
    if (end == at || *end != ':' || phrase < 0 || phrase >= phrases) {
        *malformed = 1;
        return TIER_NONE;
    }
    const char *tierText = end + 1;
    long tier = strtol(tierText, &end, 10);
    *cursor = end;
    if (end == tierText || tier < 0 || tier >= TIER_NONE) {
        *malformed = 1;
        return TIER_NONE;
    }
    return frequency[phrase] > 0 ? (int)tier : TIER_NONE;
}

/* Whether `text` (n bytes), lowercased as SQLite's lower() does, holds `word`. */
static int holds(const char *text, int n, const char *word, int length) {
    if (length == 0) return 1;
    for (int start = 0; start + length <= n; start++) {
        int matched = 1;
        for (int i = 0; i < length; i++) {
            unsigned char c = (unsigned char)text[start + i];
            if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
            if (c != (unsigned char)word[i]) {
                matched = 0;
                break;
            }
        }
        if (matched) return 1;
    }
    return 0;
}

static void marginalia_rank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int count,
                            sqlite3_value **values) {
    if (count < 1 || (count - 1) % 2 != 0) {
        sqlite3_result_error(context, "marginalia_rank: a tree, then pairs of spellings", -1);
        return;
    }
    const char *tree = (const char *)sqlite3_value_text(values[0]);
    if (tree == NULL) {
        sqlite3_result_error(context, "marginalia_rank: no tree", -1);
        return;
    }
    RankData *data;
    int rc = rank_data(api, fts, tree, &data);
    int instances = 0;
    if (rc == SQLITE_OK) rc = api->xInstCount(fts, &instances);
    if (rc == SQLITE_OK) memset(data->frequency, 0, sizeof(double) * (size_t)data->phrases);
    for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
        int phrase, column, offset;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc == SQLITE_OK && phrase >= 0 && phrase < data->phrases) data->frequency[phrase] += 1.0;
    }
    int length = 0;
    if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &length);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    int malformed = 0;
    const char *cursor = tree;
    int tier = tree_tier(&cursor, data->frequency, data->phrases, &malformed);
    if (malformed) {
        sqlite3_result_error(context, "marginalia_rank: a malformed tree", -1);
        return;
    }
    if (tier == TIER_NONE) tier = 3; /* not expected: a passage the expression matches holds its phrases */

    /* The bm25 of the passage's tier's expression: the phrases of that tier and the tiers before it. */
    const double k1 = 1.2, b = 0.75;
    double score = 0.0;
    for (int phrase = 0; phrase < data->phrases; phrase++) {
        if (data->tier[phrase] > tier) continue;
        double f = data->frequency[phrase];
        score += data->idf[phrase] * (f * (k1 + 1.0)) / (f + k1 * (1.0 - b + b * length / data->averageLength));
    }

    int spelled = 1;
    if (count > 1) {
        const char *text = NULL;
        int n = 0;
        rc = api->xColumnText(fts, 0, &text, &n);
        if (rc != SQLITE_OK) {
            sqlite3_result_error_code(context, rc);
            return;
        }
        for (int pair = 1; spelled && pair + 1 < count; pair += 2) {
            spelled = holds(text, n, (const char *)sqlite3_value_text(values[pair]), sqlite3_value_bytes(values[pair]))
                || holds(text, n, (const char *)sqlite3_value_text(values[pair + 1]),
                         sqlite3_value_bytes(values[pair + 1]));
        }
    }
    sqlite3_result_double(context, (2.0 * tier + (spelled ? 0.0 : 1.0)) * 1e6 - score);
}

int marginalia_register_rank(sqlite3 *db) {
    /* "SELECT fts5(?1)" with a pointer bound as "fts5_api_ptr": https://www.sqlite.org/fts5.html#extending_fts5 */
    fts5_api *fts = NULL;
    sqlite3_stmt *statement = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_pointer(statement, 1, (void *)&fts, "fts5_api_ptr", NULL);
    sqlite3_step(statement);
    rc = sqlite3_finalize(statement);
    if (rc != SQLITE_OK) return rc;
    if (fts == NULL || fts->iVersion < 2) return SQLITE_ERROR;
    return fts->xCreateFunction(fts, "marginalia_rank", NULL, marginalia_rank, NULL);
}
