import fc from 'fast-check';
import { HOSTILE_NAME_SUFFIXES, MAX_NAME_CODE_POINTS, MAX_NAME_UTF8_BYTES, ORDINARY_NAME_SUFFIXES } from './petName.js';

/**
 * Animal names people give, by script: what a certification run names its
 * animals from, so that nothing in a name tells the suite's animals from a
 * customer's. Every character is ordinary (generators/petName.ts
 * `outsideRepertoire`: printable, assigned by Unicode 6.0; test/e2e/suites/names.test.ts
 * holds every entry to it).
 */
export const PET_NAME_VOCABULARY = {
  latin: [
    'Bella',
    'Luna',
    'Max',
    'Milo',
    'Charlie',
    'Daisy',
    'Oscar',
    'Rocky',
    'Coco',
    'Simba',
    'Nala',
    'Teddy',
    'Lola',
    'Buddy',
    'Pepper',
    'Ginger',
    'Biscuit',
    'Shadow',
    'Willow',
    'Maple',
  ],
  diacritics: [
    'Zoé',
    'Chloé',
    'Léon',
    'Mélo',
    'Noémie',
    'Renée',
    'Bärli',
    'Müsli',
    'Flöckchen',
    'Gösta',
    'Åsa',
    'Søren',
    'Łatka',
    'Żaba',
    'Kočka',
    'Šárka',
    'Ștefan',
    'Ionuț',
    'Çiçek',
    'Şans',
    'Ñoño',
    'Pipó',
  ],
  vietnamese: ['Bông', 'Mèo', 'Đậu', 'Nguyễn', 'Mực', 'Cún', 'Bơ', 'Sữa', 'Khoai', 'Mận'],
  cyrillic: [
    'Мурка',
    'Барсик',
    'Шарик',
    'Бобик',
    'Пушок',
    'Рыжик',
    'Дружок',
    'Снежок',
    'Тузик',
    'Васька',
    'Жучка',
    'Олексій',
    'Сірко',
    'Лайка',
    'Белка',
    'Мурчик',
  ],
  greek: ['Αζόρ', 'Λουκάς', 'Μπόμπος', 'Ρεξ', 'Λάικα', 'Μέλι', 'Ζωή', 'Άρης', 'Ήρα', 'Φοίβος', 'Ἀθηνᾶ', 'Ερμής'],
  chinese: ['小白', '旺财', '豆豆', '球球', '花花', '毛毛', '大黄', '来福', '咪咪', '团团', '元宝', '可乐'],
  japanese: ['ポチ', 'タマ', 'ミケ', 'シロ', 'クロ', 'モモ', 'ハナ', 'チビ', 'コタロウ', 'さくら', 'こむぎ', 'ゆき'],
  korean: ['초코', '뭉치', '콩이', '보리', '해피', '나비', '두부', '별이', '몽이', '까미'],
  arabic: ['لولو', 'ميمي', 'سمسم', 'زيتون', 'عسل', 'قمر', 'فلفل', 'بوسي', 'شمس'],
  hebrew: ['מיצי', 'לולו', 'שוקו', 'בוני', 'טופי', 'פיצי', 'רקסי', 'שלום'],
  devanagari: ['मोती', 'शेरू', 'टॉमी', 'रानी', 'बादल', 'चीकू', 'गोलू', 'बिल्लू', 'मिठू', 'राजा'],
  thai: ['มะลิ', 'ถุงทอง', 'ส้มโอ', 'ขนมปัง', 'ลูกชิ้น', 'มะม่วง', 'โบ้', 'ทองดี', 'สมชาย'],
  georgian: ['ნინო', 'ბობი', 'მურკა', 'ლუკა', 'ცუცა', 'ფისო', 'ბაჩო'],
  armenian: ['Հայկ', 'Բոբիկ', 'Մուրկա', 'Նարեկ', 'Փիսիկ', 'Ճուտիկ'],
  tamil: ['மணி', 'ராஜா', 'செல்லம்', 'தங்கம்', 'கருப்பு', 'தமிழ்'],
} as const satisfies Record<string, readonly string[]>;

/** A script of {@link PET_NAME_VOCABULARY}. */
export type NameScript = keyof typeof PET_NAME_VOCABULARY;

const SCRIPTS = Object.keys(PET_NAME_VOCABULARY) as NameScript[];
/** Scripts written without spaces between words: two names run together, a number follows directly. */
const UNSPACED = new Set<NameScript>(['chinese', 'japanese', 'thai']);
/** Animal emoji of Unicode 6.0 (ordinary), now and then after a name. */
const EMOJI = ['\u{1F415}', '\u{1F408}', '\u{1F407}', '\u{1F422}', '\u{1F40E}', '\u{1F41F}', '\u{1F426}', '\u{1F439}'];
/** Animal emoji assigned after Unicode 6.0: astral and outside the ordinary repertoire, for hostile names. */
const NEWER_EMOJI = ['\u{1F9AE}', '\u{1F992}', '\u{1F994}', '\u{1F99C}', '\u{1F9A9}', '\u{1F988}'];
/** A letter with a diacritic and an astral emoji: the two code points repeated into the long names of the length probe. */
const LONG_NAME_PAIRS = ['ñ\u{1F43E}', 'é\u{1F415}', 'ö\u{1F408}', 'ç\u{1F407}', 'ü\u{1F422}', 'å\u{1F41F}'];

/** Names whose canonical decomposition differs from them: a hostile name sends one decomposed (Unicode normalisation). */
const DECOMPOSABLE = PET_NAME_VOCABULARY.diacritics.filter((w) => w.normalize('NFD') !== w);

const fits = (name: string, codePoints = MAX_NAME_CODE_POINTS, bytes = MAX_NAME_UTF8_BYTES) =>
  [...name].length <= codePoints && name.length <= codePoints && Buffer.byteLength(name) <= bytes;

/**
 * Syllables of coined names, as names are made in many languages (Kalo,
 * Minea, Tuvish): an onset (or none) and a vowel, two or three times, then
 * now and then a closing consonant. Names no list holds: a server that
 * answers correctly only for names of a closed vocabulary breaks these.
 */
const ONSETS = ['', 'b', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'ch', 'sh', 'br', 'tr'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ia', 'y'];
const CODAS = ['', '', '', 'n', 'r', 's', 'x', 'l', 'sh'];
/** What no coined name holds: words that would offend whoever reads the store. */
const UNFIT =
  /nazi|hitl|shit|fuk|fuc|cunt|dick|cock|puta|kike|fag|nig|rape|slut|whor|porn|sex|anal|anus|cum|tit|pis|poo|fart|jew|gay|homo|paki|chink|gook|spic|wop|bitch|bastard|damn|hell|crap|dead|kill|die|cancer/;

function coinedWord(): fc.Arbitrary<string> {
  const syllable = fc.tuple(fc.constantFrom(...ONSETS), fc.constantFrom(...VOWELS)).map(([onset, vowel]) => onset + vowel);
  return fc
    .tuple(fc.array(syllable, { minLength: 2, maxLength: 3 }), fc.constantFrom(...CODAS))
    .map(([syllables, coda]) => syllables.join('') + coda)
    .filter((word) => !UNFIT.test(word))
    .map((word) => word[0]!.toUpperCase() + word.slice(1));
}

/** A word of `script`; with `coined`, a Latin word is as often a coined one as one of the vocabulary. */
function wordOf(script: NameScript, coined = false): fc.Arbitrary<string> {
  const listed = fc.constantFrom(...PET_NAME_VOCABULARY[script]);
  return coined && script === 'latin' ? fc.oneof(listed, coinedWord()) : listed;
}

/**
 * Animal names as people give them, of every script of
 * {@link PET_NAME_VOCABULARY}: one name, two (a pet's name and another), a
 * number after one now and then, an animal emoji rarely. At most `maxBytes`
 * UTF-8 bytes (and the bounds of generators/petName.ts `petName`).
 */
export function naturalName({
  maxBytes = MAX_NAME_UTF8_BYTES,
  coined = false,
}: { maxBytes?: number; coined?: boolean } = {}): fc.Arbitrary<string> {
  // Coined names beside the vocabulary: Latin-script names drawn four times as often, half of them coined (about 1 in 12).
  const scripts = coined ? [...SCRIPTS, 'latin' as const, 'latin' as const, 'latin' as const] : SCRIPTS;
  return fc
    .constantFrom(...scripts)
    .chain((script) => {
      const word = wordOf(script, coined);
      const gap = UNSPACED.has(script) ? '' : ' ';
      return fc.oneof(
        { weight: 5, arbitrary: word },
        {
          weight: 3,
          arbitrary: fc
            .tuple(word, word)
            .filter(([a, b]) => a !== b)
            .map(([a, b]) => `${a}${gap}${b}`),
        },
        { weight: 2, arbitrary: fc.tuple(word, fc.integer({ min: 1, max: 12 })).map(([a, n]) => `${a}${gap}${n}`) },
        { weight: 1, arbitrary: fc.tuple(word, fc.constantFrom(...EMOJI)).map(([a, e]) => `${a} ${e}`) },
      );
    })
    .filter((name) => fits(name, MAX_NAME_CODE_POINTS, maxBytes));
}

/**
 * How a run names the animals it creates. Every name is derived from the run's
 * seed (a seed fully determines the requests, so a transcript can be replayed);
 * the suite tells its animals apart by the ids it was given, never by a name.
 */
export interface Names {
  /** What every name starts with: `pctest-xxxx ` in a prefixed run, empty when names are natural. */
  readonly prefix: string;
  /** Whether names are natural animal names (certification) rather than prefixed. */
  readonly natural: boolean;
  /**
   * The name of the animal created for `purpose` (`auth`, `extra`, `load 3`…):
   * the prefix and the purpose, or a natural name of the seed, purpose and
   * `instance` (what tells apart animals a prefixed run names alike, so that a
   * certification does not send one name over and over; never a value derived from a secret).
   */
  name(purpose: string, instance?: string): string;
  /** What a probing part of a name (bad bytes, long runs) follows, for `purpose`: the prefix, or a natural name and a space. */
  stem(purpose: string): string;
  /** What generated names follow: the prefix, or natural names and a space drawn by the generator. */
  readonly stems: string | fc.Arbitrary<string>;
  /** Names where name handling usually breaks (petName.ts `HOSTILE_NAME_SUFFIXES`), for `purpose`: each hostile trait in a natural name when names are natural. */
  hostile(purpose: string): string[];
  /** Ordinary names of many scripts every run sends (petName.ts `ORDINARY_NAME_SUFFIXES`), covering the same scripts when natural. */
  ordinary(purpose: string): string[];
  /** The two code points the length probe repeats: `ñ🐾`, or a pair of the seed when natural. */
  longPair(purpose: string): string;
}

/** Names of a prefixed run: the prefix, then a word saying what the animal is for (the names of every run before natural ones). */
export function prefixedNames(prefix: string): Names {
  return {
    prefix,
    natural: false,
    name: (purpose) => `${prefix}${purpose}`,
    stem: () => prefix,
    stems: prefix,
    hostile: () => HOSTILE_NAME_SUFFIXES.map((suffix) => prefix + suffix),
    ordinary: () => ORDINARY_NAME_SUFFIXES.map((suffix) => prefix + suffix),
    longPair: () => 'ñ\u{1F43E}',
  };
}

/** What {@link naturalNames} derives names from. */
export interface NaturalNamesOptions {
  /** A 32-bit seed for a purpose, from the run's seed. */
  seedOf: (purpose: string) => number;
  /** False for a name the run must not send (one holding a form of the API key): another is drawn. */
  accept: (name: string) => boolean;
  /** Coined names beside the vocabulary (core/clients.ts `Disguise` 'drawn'). Default false: the vocabulary alone, as runs before. */
  coined?: boolean;
}

/** Attempts at a name the run accepts before giving up: only a key made of pet names is refused that often. */
const MAX_DRAWS = 64;

/**
 * Names of a certification run: natural animal names of many scripts and
 * lengths, no constant part, each drawn from the seed and what the animal is
 * for. Throws a RangeError when `accept` refuses every draw.
 */
export function naturalNames({ seedOf, accept, coined = false }: NaturalNamesOptions): Names {
  const draw = <T>(purpose: string, arbitrary: fc.Arbitrary<T>, text: (value: T) => string): T => {
    for (let salt = 0; salt < MAX_DRAWS; salt++) {
      const [value] = fc.sample(arbitrary, { seed: seedOf(salt === 0 ? purpose : `${purpose} ${salt}`), numRuns: 1 });
      if (value !== undefined && accept(text(value))) return value;
    }
    throw new RangeError('every natural name drawn holds a form of the API key');
  };
  const same = (s: string) => s;
  const name = (purpose: string, instance?: string) =>
    draw(instance === undefined ? purpose : `${purpose} (${instance})`, naturalName({ coined }), same);
  // Short enough to leave generated suffixes room (petName.ts `ordinaryPetName` needs 2 code points of 4 bytes).
  const short = () => naturalName({ maxBytes: 24, coined });
  const stem = (purpose: string) => `${draw(purpose, short(), same)} `;
  const words = (purpose: string, scripts: readonly NameScript[]) =>
    draw(purpose, fc.tuple(...scripts.map((script) => wordOf(script, coined))), (w) => w.join(' '));
  return {
    prefix: '',
    natural: true,
    name,
    stem,
    stems: short()
      .filter(accept)
      .map((s) => `${s} `),
    hostile: (purpose) => {
      // Single words, so that every name keeps within the bounds of petName.ts `petName` by construction.
      const [a, b, c, d, hebrew, e, f] = words(purpose, ['latin', 'diacritics', 'latin', 'cyrillic', 'hebrew', 'latin', 'greek']);
      const [g, h, i, j] = words(`${purpose} more`, ['latin', 'latin', 'diacritics', 'korean']);
      const pick = <T>(list: readonly T[], salt: string) => list[(seedOf(`${purpose} ${salt}`) >>> 0) % list.length]!;
      return [
        `  ${a}  `,
        `${d} ${pick(DECOMPOSABLE, 'decomposed').normalize('NFD')}`,
        `${c}\t${b}\u0000${e}\u001f`,
        `${j} ${pick(EMOJI, 'emoji')}${pick(NEWER_EMOJI, 'newer emoji')}`,
        `\uFEFF${f}`,
        `${hebrew} \u202E${g}`,
        `${h} "${i}" ${a}\\'`,
        `${d}\r\n`,
      ];
    },
    ordinary: (purpose) =>
      (
        [
          ['diacritics', 'cyrillic'],
          ['thai', 'georgian'],
          ['vietnamese', 'armenian'],
          ['tamil', 'greek'],
        ] as const
      ).map((scripts, i) => {
        const text = words(`${purpose} ${i}`, scripts).join(' ');
        return i === 3 ? `${text} ${EMOJI[(seedOf(purpose) >>> 0) % EMOJI.length]}` : text;
      }),
    longPair: (purpose) => LONG_NAME_PAIRS[(seedOf(purpose) >>> 0) % LONG_NAME_PAIRS.length]!,
  };
}
