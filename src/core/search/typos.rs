//! Typos: the indexed terms a query word the index lacks may have meant,
//! found without measuring the distance to every term.
//!
//! SymSpell's design (Wolf Garbe, 2012): the pipeline stores, for every
//! word of the reference, the keys of the strings made by deleting one
//! or two of its bytes (`neighbourhood`); a query word's own deletions
//! (`deletion_keys`) are looked up among them, and only the few words
//! that share one are measured ([`edit_distance`]). Words, not stems: a
//! typo is made in a word, and counted on stems (shorter, and a misspelt
//! word's stem is anything) edits reach words it is nothing like. Two strings
//! within one edit (an insertion, a deletion, a substitution or two
//! letters swapped) always share a deletion, so none is missed; within
//! two, nearly always. A key is a 64-bit FNV-1a hash of the string, the
//! same at build time and at run time.
//!
//! Words of Han ideographs (Chinese bigrams, `super::terms`) have no
//! neighbours, and a query's are not measured: two characters are a
//! word or another, and an edit to their bytes is a third character.

/// The most edits between a query word and the word of the reference it
/// is read as: none under five letters (`user` is not `used`, nor `mix`
/// `max`), one up to eight, two from nine on.
pub fn allowed_edits(word: &str) -> usize {
    match word.chars().count() {
        0..=4 => 0,
        5..=8 => 1,
        _ => 2,
    }
}

/// The longest word, in bytes, that has neighbours: longer ones are
/// matched exactly or not at all.
const MAX_TYPO_BYTES: usize = 16;

/// Whether a word of the reference may be what a typo meant: letters
/// only, four to [`MAX_TYPO_BYTES`] bytes (one edit from a five-letter
/// query word), and no Han ideograph: a bigram of Chinese is six bytes,
/// and bytes edited in it make other characters, not a typo of it.
pub(crate) fn may_be_misspelt(word: &str) -> bool {
    (4..=MAX_TYPO_BYTES).contains(&word.len())
        && word.chars().all(char::is_alphabetic)
        && !super::has_ideograph(word)
}

/// One deletion key of one spelling.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Neighbour {
    /// The key (`deletion_keys`).
    pub key: u64,
    /// The spelling's position in the index.
    pub spelling: u32,
}

/// The deletion keys of every spelling a typo may be read as, sorted by
/// key: as many deletions as
/// the query words that may be read as it are allowed ([`allowed_edits`]),
/// two from seven letters on (a nine-letter word two edits away), one below.
pub(crate) fn neighbourhood(spellings: &[super::Spelling]) -> Vec<Neighbour> {
    let mut neighbours: Vec<Neighbour> = (0..)
        .zip(spellings)
        .filter(|(_, spelling)| spelling.typos)
        .flat_map(|(i, spelling)| {
            // Two from seven letters on, one below.
            let edits = 1 + usize::from(spelling.word.chars().count() >= 7);
            let keys = deletion_keys(spelling.word.as_bytes(), edits);
            keys.into_iter()
                .map(move |key| Neighbour { key, spelling: i })
        })
        .collect();
    neighbours.sort_unstable();
    neighbours
}

/// The keys of `word` and of every string made by deleting up to `edits`
/// of its bytes, sorted, each once; none for a word longer than
/// [`MAX_TYPO_BYTES`].
pub(crate) fn deletion_keys(word: &[u8], edits: usize) -> Vec<u64> {
    let mut keys = Vec::with_capacity(1 + word.len() * (word.len() + 1) / 2);
    if word.len() <= MAX_TYPO_BYTES {
        delete(word, 0, edits, &mut keys);
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Push the key of `word` and, deleting bytes from `from` on, of the
/// strings `edits` more deletions make.
fn delete(word: &[u8], from: usize, edits: usize, keys: &mut Vec<u64>) {
    keys.push(key(word));
    if edits == 0 || word.is_empty() {
        return;
    }
    // On the stack: `word` is at most MAX_TYPO_BYTES long.
    let mut shorter = [0u8; MAX_TYPO_BYTES];
    let length = word.len() - 1;
    for at in from..word.len() {
        shorter[..at].copy_from_slice(&word[..at]);
        shorter[at..length].copy_from_slice(&word[at + 1..]);
        delete(&shorter[..length], at, edits - 1, keys);
    }
}

/// A deletion's key, stable across builds and platforms (the pipeline
/// stores them).
fn key(bytes: &[u8]) -> u64 {
    crate::fnv::fnv1a(crate::fnv::START, bytes)
}

/// Optimal string alignment distance between two strings of at most
/// `MAX_TYPO_BYTES` bytes (two letters swapped count one edit), or
/// `None` when it exceeds `limit` or a string is longer.
pub fn edit_distance(a: &[u8], b: &[u8], limit: usize) -> Option<usize> {
    const W: usize = MAX_TYPO_BYTES + 1;
    if a.len() >= W || b.len() >= W || a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut rows = [[0usize; W]; 3];
    for (j, cell) in rows[1].iter_mut().enumerate().take(b.len() + 1) {
        *cell = j;
    }
    for i in 1..=a.len() {
        let (before, current) = (i % 3, (i + 1) % 3);
        let previous = (i + 2) % 3;
        rows[current][0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[before][j] + 1)
                .min(rows[current][j - 1] + 1)
                .min(rows[before][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[previous][j - 2] + 1);
            }
            rows[current][j] = d;
        }
    }
    let distance = rows[(a.len() + 1) % 3][b.len()];
    (distance <= limit).then_some(distance)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance(b"abc", b"abc", 2), Some(0));
        assert_eq!(edit_distance(b"abc", b"acb", 2), Some(1));
        assert_eq!(edit_distance(b"", b"ab", 2), Some(2));
        assert_eq!(edit_distance(b"kitten", b"sitting", 3), Some(3));
        assert_eq!(edit_distance(b"kitten", b"sitting", 2), None);
        assert_eq!(edit_distance(&[b'a'; 17], &[b'a'; 17], 2), None);
    }

    #[test]
    fn deletions_are_every_shorter_string_once() {
        assert_eq!(deletion_keys(b"ab", 1), sorted(&[b"ab", b"a", b"b"]));
        assert_eq!(
            deletion_keys(b"aab", 2),
            sorted(&[b"aab", b"ab", b"aa", b"a", b"b"])
        );
        assert_eq!(deletion_keys(b"abc", 0), sorted(&[b"abc"]));
        assert!(deletion_keys(&[b'a'; 17], 1).is_empty());
    }

    #[test]
    fn allowed_edits_grow_with_the_word() {
        assert_eq!(allowed_edits("user"), 0);
        assert_eq!(allowed_edits("selct"), 1);
        assert_eq!(allowed_edits("sélct"), 1);
        assert_eq!(allowed_edits("rollbakk"), 1);
        assert_eq!(allowed_edits("transacton"), 2);
    }

    fn sorted(strings: &[&[u8]]) -> Vec<u64> {
        let mut keys: Vec<u64> = strings.iter().map(|s| key(s)).collect();
        keys.sort_unstable();
        keys
    }

    proptest::proptest! {
        #[test]
        fn words_one_edit_apart_share_a_deletion(word in "[a-z]{1,12}", at in 0usize..12, letter in proptest::char::range('a', 'z'), kind in 0u8..4) {
            let mut typo = word.clone().into_bytes();
            let at = at % typo.len();
            match kind {
                0 => typo[at] = letter as u8,
                1 => typo.insert(at, letter as u8),
                2 => { typo.remove(at); }
                _ => if at + 1 < typo.len() { typo.swap(at, at + 1) },
            }
            let ours = deletion_keys(word.as_bytes(), 1);
            let theirs = deletion_keys(&typo, 1);
            proptest::prop_assert!(ours.iter().any(|k| theirs.binary_search(k).is_ok()));
        }
    }
}
