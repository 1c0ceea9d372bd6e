"""English forms no suffix rule joins to their word, as that word: the past
tense and participle of an irregular verb, the plural of an irregular noun
(went: go, bought: buy, children: child), the informal words of a chat
(kids: child, mom: mother, pics: picture) and British spellings (colour:
color, organised: organized).  A question asks "What do Melanie's children
like?" or "When did Caroline go ...?" while a chat tells "my kids love ..."
or "I went ...".

Written for this suite from the common irregular verbs and nouns of English
(no source list copied).  Left out: forms that are as often another word
(rose, lay, bore, bound, ground, wound, bit, lit, drew, tore, leaves, lives),
so a note about a rose or a wound is not found for a question about rising
or winding; bro, nana, min and kidding (as often another word or sense), and
words of two letters (the stemmer never looks them up)."""

_VERBS = """
arise arose arisen | awake awoke awoken | beat beaten | become became | begin began begun
| bend bent | bleed bled | blow blew blown | break broke broken | breed bred | bring brought
| build built | burn burnt | buy bought | catch caught | choose chose chosen | cling clung
| come came | creep crept | deal dealt | dig dug | draw drawn | dream dreamt | drink drank drunk
| drive drove driven | eat ate eaten | fall fell fallen | feed fed | feel felt | fight fought
| find found | flee fled | fling flung | fly flew flown | forbid forbade forbidden
| forget forgot forgotten | forgive forgave forgiven | freeze froze frozen | get got gotten
| give gave given | go went gone | grow grew grown | hang hung | hear heard | hide hid hidden
| hold held | keep kept | kneel knelt | know knew known | lay laid | lead led | leap leapt
| learn learnt | leave left | lend lent | lose lost | make made | mean meant | meet met
| mistake mistook mistaken | overcome overcame | pay paid | rebuild rebuilt | ride rode ridden
| ring rang rung | rise risen | run ran | say said | see saw seen | seek sought | sell sold
| send sent | shake shook shaken | shine shone | shoot shot | show shown | shrink shrank shrunk
| sing sang sung | sink sank sunk | sit sat | sleep slept | slide slid | speak spoke spoken
| spend spent | spin spun | spring sprang sprung | stand stood | steal stole stolen | stick stuck
| sting stung | strike struck | swear swore sworn | sweep swept | swim swam swum | swing swung
| take took taken | teach taught | tell told | think thought | throw threw thrown
| understand understood | undertake undertook undertaken | undergo underwent undergone
| wake woke woken | wear wore worn | weave wove woven | weep wept | win won | withdraw withdrew withdrawn
| write wrote written
"""

_NOUNS = """
child children | man men | woman women | mouse mice | foot feet | tooth teeth | goose geese
| wife wives | knife knives | wolf wolves | half halves | shelf shelves | thief thieves | loaf loaves
"""

_INFORMAL = """
child kid kids | mother mom moms mum mums mommy | father dad dads | grandmother grandma
| grandfather grandpa | sister sis | picture pic pics | birthday bday | favorite fave fav
| conversation convo | vacation vacay | information info | tomorrow tmrw | people ppl
| message msg msgs | minutes mins | hours hrs | years yrs | weeks wks | want wanna | going gonna
"""

# British spellings as the American, with the inflections of each kind of word
_BRITISH_NOUNS = ("colour flavour honour humour labour neighbour centre theatre metre litre kilometre "
                  "programme licence catalogue dialogue").split()
_BRITISH_VERBS = "organise realise recognise apologise".split()
_BRITISH_WORDS = {"favourite": "favorite", "favourites": "favorites", "neighbourhood": "neighborhood",
                  "neighbourhoods": "neighborhoods", "behaviour": "behavior", "jewellery": "jewelry",
                  "grey": "gray", "defence": "defense", "offence": "offense", "pyjamas": "pajamas",
                  "practise": "practice", "practised": "practiced", "practising": "practicing",
                  "coloured": "colored", "honoured": "honored", "flavoured": "flavored",
                  "organisation": "organization", "organisations": "organizations", "realisation": "realization"}


def _american(word):
    """The American spelling of a listed British noun (colour: color, centre: center)."""
    if word.endswith("our"):
        return word[:-3] + "or"
    if word.endswith("tre"):
        return word[:-3] + "ter"
    if word.endswith("mme"):
        return word[:-3] + "m"
    if word.endswith("ogue"):
        return word[:-2]
    return word[:-2] + "se"  # licence: license


def _british_table():
    table = dict(_BRITISH_WORDS)
    for noun in _BRITISH_NOUNS:
        table[noun] = _american(noun)
        table[noun + "s"] = _american(noun) + "s"
    for verb in _BRITISH_VERBS:
        stem = verb[:-3]
        for ending in ("ise", "ised", "ises", "ising"):
            table[stem + ending] = stem + ending.replace("s", "z", 1)
    return table


def _table(text):
    table = {}
    for group in text.split("|"):
        base, *forms = group.split()
        table.update((form, base) for form in forms)
    return table


BASE_FORM = _table(_VERBS)
BASE_FORM.update(_table(_NOUNS))
BASE_FORM.update(_table(_INFORMAL))
BASE_FORM.update(_british_table())
