import Marginalia
print(Marginalia.version)
