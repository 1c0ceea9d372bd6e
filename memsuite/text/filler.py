"""The words of a chat turn that carry no topic: greetings, thanks, the words
that move a conversation along ("ready", "next step", "let's go"), hedges and
praise.  A long prompt ("Hey! That customer rush was something else. Ready to
get back into the remittance stuff now.") is about its other words
(remittance); a short question keeps all of its words."""
from .stemmer import stem

_WORDS = """
hi hello hey hiya greetings thanks thank cheers please sorry okay ok alright yes yeah yep sure
right great good nice cool awesome perfect excellent wonderful fantastic amazing brilliant lovely
wow oh ah um hmm lol haha mate guy guys buddy dude friend assistant bot chatgpt claude
now let next get got getting gets ready need needs needed want wanted like really actually
just even still already again also maybe perhaps probably definitely absolutely exactly
honestly basically literally totally pretty quite bit lot lots kind sort sorted stuff thing
things something anything everything way step steps move moving forward proceed start started
go going gone went come coming back make makes making made take taking took see look looking
looks seems sounds sound feel feels feeling felt think thinking thought know knew tell told
said say saying talk talked talking discuss discussed mention mentioned remember recall
keep put give help show find figure try trying tried done finally immediately properly proper
real solid clear specific main whole best better first last time today tomorrow yesterday
"""

_STEMS = []  # the words as the tokenizer's stems, made on first use (a cold query pays only if long)


def is_filler(term):
    """Whether a term (a tokenizer stem) is a chat word with no topic of its own."""
    if not _STEMS:
        _STEMS.append(frozenset(stem(w) for w in _WORDS.split()))
    return term in _STEMS[0]
