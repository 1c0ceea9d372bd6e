"""English irregular forms as their base word: the past tense and participle
of an irregular verb, the plural of an irregular noun.  A question asks in the
base form ("When did Caroline go ...?", "What did Mel buy?") while a note or a
chat tells it in the past ("I went ...", "I bought ..."), and no suffix rule
joins went to go or bought to buy.

Written for this suite from the common irregular verbs and nouns of English
(no source list copied).  Left out: forms that are as often another word
(rose, lay, bore, bound, ground, wound, bit, lit, drew, tore, leaves, lives),
so a note about a rose or a wound is not found for a question about rising
or winding."""

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


def _table(text):
    table = {}
    for group in text.split("|"):
        base, *forms = group.split()
        table.update((form, base) for form in forms)
    return table


BASE_FORM = _table(_VERBS)
BASE_FORM.update(_table(_NOUNS))
