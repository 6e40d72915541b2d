// placeholder until this module lands; delete when adding real sources
